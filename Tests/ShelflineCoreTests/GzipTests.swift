import Foundation
import TestSupport
import TestTraits
import Testing

@testable import ShelflineCore

@Suite(.offCooperativePool) struct GzipTests {
    /// Writes `text` through GzipWriter into an atomic file and returns its path.
    func gzip(_ text: String, in dir: TemporaryDirectory, name: String = "out.gz", chunkSize: Int = 1 << 20) throws -> String {
        try GzipFixture.write(text: text, to: dir.file(name), chunkSize: chunkSize)
    }

    func readText(_ path: String) throws -> String {
        var bytes: [UInt8] = []
        try GzipReader(path: path).forEachChunk { bytes += $0 }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test(arguments: [0, 1, 100, 70_000])
    func roundTripAcrossManyMembers(lines: Int) throws {
        let dir = TemporaryDirectory()
        let text = (0..<lines).map { "{\"n\":\($0),\"t\":\"línea \($0)\"}\n" }.joined()
        // A small chunk size forces many gzip members.
        let path = try gzip(text, in: dir, chunkSize: 4096)
        #expect(try readText(path) == text)
        var count = 0
        try GzipReader(path: path).forEachLine { _, number in count = number }
        #expect(count == lines)
    }

    /// The writer reuses a written member's buffers for the next chunk: a member that compresses
    /// well, written into the buffer of one that did not, must leave nothing of the older one.
    @Test(.bug(id: 41), arguments: [1, 2])
    func membersWrittenIntoReusedBuffersHoldOnlyTheirOwnBytes(threads: Int) throws {
        let dir = TemporaryDirectory()
        var generator = SeededGenerator(seed: 41)
        var bytes: [UInt8] = []
        for chunk in 0..<12 {
            let noise = chunk % 3 == 0
            bytes += (0..<4096).map { _ in noise ? UInt8.random(in: 0...255, using: &generator) : UInt8(ascii: "a") }
        }
        let path = dir.file("reused.gz")
        let file = try AtomicFile(path: path)
        let writer = GzipWriter(sink: file, path: path, chunkSize: 4096, threads: threads)
        try writer.write(bytes)
        try writer.finish()
        try file.commit()
        var read: [UInt8] = []
        try GzipReader(path: path).forEachChunk { read += $0 }
        #expect(read == bytes)
    }

    @Test func outputIsDeterministicAndReadableByGunzip() throws {
        let dir = TemporaryDirectory()
        let text = String(repeating: "same input, same bytes\n", count: 50_000)
        let first = try gzip(text, in: dir, name: "a.gz", chunkSize: 65_536)
        let second = try gzip(text, in: dir, name: "b.gz", chunkSize: 65_536)
        #expect(FileManager.default.contents(atPath: first) == FileManager.default.contents(atPath: second))
        let gunzip = Process()
        gunzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gunzip.arguments = ["-c", "gzip -dc '\(first)' | wc -l"]
        let pipe = Pipe()
        gunzip.standardOutput = pipe
        try gunzip.run()
        gunzip.waitUntilExit()
        let lines = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(lines.trimmingCharacters(in: .whitespacesAndNewlines) == "50000")
    }

    /// Chunks are compressed on worker threads and written from there, in order, into reused
    /// slots (issue 41): the bytes are the same whatever the number of chunks in flight, a line's
    /// newline included (`write(byte:)`), and every chunk arrives in order.
    @Test(.bug(id: 41), arguments: [1, 2, 4])
    func bytesDoNotDependOnChunksInFlight(threads: Int) throws {
        var text: [UInt8] = []
        for line in 0..<20_000 { text += Array("{\"n\":\(line),\"t\":\"línea \(line % 97)\"}".utf8) + [0x0A] }
        let reference = CapturingSink()
        let single = GzipWriter(sink: reference, path: "reference.gz", chunkSize: 4096, threads: 1)
        try single.write(text)
        try single.finish()
        let sink = CapturingSink()
        let writer = GzipWriter(sink: sink, path: "out.gz", chunkSize: 4096, threads: threads)
        var start = 0
        for (index, byte) in text.enumerated() where byte == 0x0A {
            try text[start..<index].withUnsafeBytes { try writer.write($0) }
            try writer.write(byte: byte)
            start = index + 1
        }
        try writer.finish()
        #expect(sink.bytes == reference.bytes)
        let dir = TemporaryDirectory()
        let path = dir.write("out.gz", bytes: sink.bytes)
        var inflated: [UInt8] = []
        try GzipReader(path: path).forEachChunk { inflated += $0 }
        #expect(inflated == text)
    }

    /// The sink is written by the compressing threads: a write that fails there reaches the caller,
    /// from a later `write` or from `finish`, and nothing more is written after it.
    @Test(.bug(id: 41)) func aSinkFailureOnAWorkerReachesTheCaller() throws {
        let sink = CapturingSink(failAfter: 2)
        let writer = GzipWriter(sink: sink, path: "out.gz", chunkSize: 1024, threads: 2)
        var generator = SeededGenerator(seed: 41)
        let error = #expect(throws: FileError.self) {
            for _ in 0..<200 {
                try writer.write((0..<1000).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
            }
            try writer.finish()
        }
        #expect(error == FileError.io(path: "out.gz", reason: "write: disk full"))
        #expect(sink.writes == 2)
    }

    /// `NDJSONWriter(hashing:)` takes the SHA-256 of the bytes it writes: the same as reading the
    /// committed file again (parse names its texts file by it).
    @Test(.bug(id: 41)) func hashingWriterNamesTheFileItCommitted() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("texts.ndjson.gz")
        let writer = try NDJSONWriter<String>(path: path, hashing: true, threads: 2)
        for line in 0..<60_000 { try writer.append("line \(line) of a file of several gzip members") }
        try writer.commit()
        #expect(writer.sha256 == (try ContentHash.file(path)))
        let plain = try NDJSONWriter<String>(path: dir.file("plain.ndjson.gz"))
        try plain.commit()
        #expect(plain.sha256 == nil)
    }

    @Test func truncatedFileIsAnErrorNamingTheFile() throws {
        let dir = TemporaryDirectory()
        let path = try gzip(String(repeating: "x,y,z\n", count: 10_000), in: dir)
        let bytes = [UInt8](FileManager.default.contents(atPath: path)!)
        let truncated = dir.write("truncated.gz", bytes: Array(bytes.dropLast(6)))
        #expect(
            throws: FileError.corrupt(
                path: truncated, line: nil,
                reason: "truncated gzip file (ends before the CRC-32/size trailer)")
        ) {
            try GzipReader(path: truncated).forEachChunk { _ in }
        }
    }

    @Test func corruptCrcIsAnError() throws {
        let dir = TemporaryDirectory()
        let path = try gzip("hello world\n", in: dir)
        var bytes = [UInt8](FileManager.default.contents(atPath: path)!)
        bytes[bytes.count - 8] ^= 0xFF  // first byte of the CRC-32 trailer
        let corrupt = dir.write("corrupt.gz", bytes: bytes)
        #expect(throws: FileError.self) { try GzipReader(path: corrupt).forEachChunk { _ in } }
    }

    @Test(arguments: ["plain text, not gzip\n", ""])
    func nonGzipInputIsAnError(content: String) throws {
        let dir = TemporaryDirectory()
        let path = dir.write("plain.gz", content)
        let error = #expect(throws: FileError.self) { try GzipReader(path: path).forEachChunk { _ in } }
        #expect(error?.exitStatus == .dataError)
        #expect(error?.description.hasPrefix(path) == true)
    }

    @Test func missingAndDirectoryInputsAreNoInput() throws {
        let dir = TemporaryDirectory()
        for path in [dir.file("nope.gz"), dir.path] {
            let error = #expect(throws: FileError.self) { _ = try GzipReader(path: path) }
            #expect(error?.exitStatus == .noInput)
        }
    }
}

@Suite(.offCooperativePool) struct AtomicFileTests {
    @Test func uncommittedWriteLeavesPreviousFileAndNoTemporary() throws {
        let dir = TemporaryDirectory()
        let target = dir.write("out.txt", "previous")
        do {
            let file = try AtomicFile(path: target)
            try file.write("half written")
            // Dropped without commit, as on any error path.
        }
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "previous")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.txt"])
    }

    @Test func commitReplacesTarget() throws {
        let dir = TemporaryDirectory()
        let target = dir.write("out.txt", "previous")
        try AtomicFile.write("new", to: target)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "new")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.txt"])
    }

    /// Writeback is started every 8 MiB while writing (issue 25): a file written across several
    /// steps, in pieces of every size around the buffer's, is the same bytes after `commit`, and an
    /// uncommitted one still never reaches the target.
    @Test func aFileOfSeveralWritebackStepsIsWrittenWhole() throws {
        let dir = TemporaryDirectory()
        let target = dir.write("big.bin", "previous")
        var expected: [UInt8] = []
        var generator = SeededGenerator(seed: 25)
        let file = try AtomicFile(path: target)
        while expected.count < 20 << 20 {
            let piece = (0..<Int(generator.next() % (600 << 10))).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            expected += piece
            try file.write(piece)
        }
        let abandoned = try AtomicFile(path: target)
        try abandoned.write(expected)
        abandoned.abandon()
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "previous")
        try file.commit()
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: target))) == expected)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["big.bin"])
    }

    @Test func missingDirectoryIsCannotCreate() throws {
        let dir = TemporaryDirectory()
        let error = #expect(throws: FileError.self) { try AtomicFile.write("x", to: dir.file("missing/out.txt")) }
        #expect(error?.exitStatus == .cannotCreate)
    }
}

@Suite(.offCooperativePool) struct PipelineConfigTests {
    @Test func shippedConfigLoads() throws {
        let config = try PipelineConfig.load(path: ExecutableRunner.repositoryRoot + "/pipeline.json")
        #expect(config.stages.map(\.name) == StageName.allCases)
    }

    @Test(arguments: [
        (
            #"{"stages": [{"name": "parse", "inputs": [], "outputs": [], "parameters": {}}, {"name": "transmogrify", "inputs": [], "outputs": [], "parameters": {}}]}"#,
            "stages[1].name"
        ),
        (#"{"stages": [{"name": "parse", "inputs": "x", "outputs": [], "parameters": {}}]}"#, "stages[0].inputs"),
        (#"{"stages": [{"name": "parse", "inputs": []}]}"#, "stages[0].outputs"),
        (
            #"{"stages": [{"name": "merge", "inputs": [], "outputs": [], "parameters": {}}, {"name": "parse", "inputs": [], "outputs": [], "parameters": {}}]}"#,
            "stages[1].name"
        ),
        (#"{"stages": [ }"#, "(file)"),
    ])
    func invalidConfigNamesTheKey(json: String, key: String) throws {
        let dir = TemporaryDirectory()
        let path = dir.write("pipeline.json", json)
        let error = #expect(throws: ConfigError.self) { try PipelineConfig.load(path: path) }
        #expect(error?.key == key)
        #expect(error?.exitStatus == .config)
    }

    struct Params: Decodable { var rate: Double }

    @Test func stageParameterErrorsNameTheNestedKey() throws {
        let config = PipelineConfig(stages: [
            StageDeclaration(
                name: .lookup, inputs: [], outputs: [],
                parameters: .object(["rate": .string("fast")]))
        ])
        let error = #expect(throws: ConfigError.self) { try config.parameters(for: .lookup, as: Params.self) }
        #expect(error?.key == "stages[0].parameters.rate")
    }
}

/// Found by the `ndjson` fuzz target in CI: a record whose bad value held a line break was quoted
/// raw in the "one-line" error.
@Test(.bug(id: 10)) func corruptRecordErrorQuotingALineBreakStaysOneLine() {
    let error = FileError.corrupt(path: "records.ndjson.gz", line: 1, reason: "invalid record: not JSON (value \"a\nb\")")
    #expect(!"\(error)".contains("\n") && "\(error)".contains(#"a\nb"#), "\(error)")
    #expect(!"\(DataError("x\ny"))".contains("\n") && !"\(TryLaterError("x\ry"))".contains("\r"))
}

/// A sink keeping what it is given, in memory; after `failAfter` writes it fails as a full disk.
final class CapturingSink: ByteSink, @unchecked Sendable {
    private(set) var bytes: [UInt8] = []
    private(set) var writes = 0
    private let failAfter: Int?

    init(failAfter: Int? = nil) { self.failAfter = failAfter }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        if let failAfter, writes >= failAfter { throw FileError.io(path: "out.gz", reason: "write: disk full") }
        writes += 1
        self.bytes += bytes
    }
}
