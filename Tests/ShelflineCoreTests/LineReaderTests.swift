import Foundation
import ShelflineCore
import TestSupport
import Testing

/// Issue 9: one line reader for stage files, the library and catalog dumps, plain or gzip; issue 12:
/// gzip is inflated on its own thread (`readAhead`) with the same lines and errors.
@Suite struct LineReaderTests {
    func gzip(_ bytes: [UInt8], in dir: TemporaryDirectory, name: String, chunkSize: Int = 1 << 20) throws -> String {
        try GzipFixture.write(bytes: bytes, to: dir.file(name), chunkSize: chunkSize)
    }

    func lines(_ path: String) throws -> [(String, Int)] {
        var lines: [(String, Int)] = []
        try LineReader.forEachLine(path: path) { bytes, number in lines.append((String(decoding: bytes, as: UTF8.self), number)) }
        return lines
    }

    /// Texts whose lines cross the readers' 256 KiB chunks and the writer's gzip members.
    static let texts: [String] = [
        "",
        "\n",
        "one",
        "one\n",
        "one\ntwo",
        "a\n\nb\n\n",
        "crlf\r\nkept\r\n",
        (0..<40_000).map { "{\"n\":\($0),\"t\":\"línea \($0)\"}\n" }.joined(),
        String(repeating: "x", count: 700_000) + "\nshort\n" + String(repeating: "y", count: 300_000),
    ]

    @Test(.bug(id: 9), arguments: texts.indices)
    func plainAndGzipGiveTheSameLines(index: Int) throws {
        let text = Self.texts[index]
        let dir = TemporaryDirectory()
        let plain = dir.write("dump.txt", text)
        let packed = try gzip(Array(text.utf8), in: dir, name: "dump.txt.gz", chunkSize: 4096)
        // Split by bytes: as Characters, "\r\n" is one grapheme and never equals "\n".
        let expected = Array(text.utf8).split(separator: 10, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
        let expectedLines = text.utf8.last == 10 ? Array(expected.dropLast()) : (text.isEmpty ? [] : expected)
        for path in [plain, packed] {
            let read = try lines(path)
            #expect(read.map(\.0) == expectedLines, "\(path)")
            #expect(read.map(\.1) == read.indices.map { $0 + 1 }, "\(path)")
        }
        var withoutReadAhead: [String] = []
        try GzipReader(path: packed).forEachLine(readAhead: false) { bytes, _ in
            withoutReadAhead.append(String(decoding: bytes, as: UTF8.self))
        }
        #expect(withoutReadAhead == expectedLines)
    }

    @Test(.bug(id: 9)) func gzipIsDetectedByItsMagicBytesNotItsName() throws {
        let dir = TemporaryDirectory()
        let packed = try gzip(Array("a\nb\n".utf8), in: dir, name: "looks-plain.txt")
        let plain = dir.write("looks-packed.gz", "\u{1f}x\n")
        #expect(try lines(packed).map(\.0) == ["a", "b"])
        #expect(try lines(plain).map(\.0) == ["\u{1f}x"])
        // Stage files must be gzip: a plain one is refused, not read as text.
        let error = #expect(throws: FileError.self) {
            try LineReader.forEachLine(path: plain, compression: .gzip) { _, _ in }
        }
        #expect(error?.exitStatus == .dataError)
    }

    @Test(.bug(id: 9)) func missingDirectoryAndFifoInputsAreNoInput() throws {
        let dir = TemporaryDirectory()
        let fifo = dir.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        for path in [dir.file("nope.txt"), dir.path, fifo] {
            let error = #expect(throws: FileError.self) { try LineReader.forEachLine(path: path) { _, _ in } }
            #expect(error?.exitStatus == .noInput, "\(path)")
        }
    }

    /// The lines before a corrupt or truncated member are delivered, then the error names the file.
    @Test(.bug(id: 12)) func readAheadDeliversEveryGoodLineThenTheError() throws {
        let dir = TemporaryDirectory()
        let text = (0..<20_000).map { "line \($0)\n" }.joined()
        let path = try gzip(Array(text.utf8), in: dir, name: "t.gz", chunkSize: 8192)
        let bytes = [UInt8](FileManager.default.contents(atPath: path)!)
        let truncated = dir.write("truncated.gz", bytes: Array(bytes.dropLast(6)))
        for readAhead in [true, false] {
            var count = 0
            let error = #expect(throws: FileError.self) {
                try GzipReader(path: truncated).forEachLine(readAhead: readAhead) { _, _ in count += 1 }
            }
            #expect(error?.description.hasPrefix(truncated) == true)
            #expect(count > 19_000 && count <= 20_000, "readAhead \(readAhead): \(count) lines")
        }
    }

    /// An error thrown while reading stops the reader thread and is the one the caller gets.
    @Test(.bug(id: 12)) func readAheadStopsWhenTheReaderThrows() throws {
        struct Enough: Error {}
        let dir = TemporaryDirectory()
        let text = (0..<200_000).map { "line \($0)\n" }.joined()
        let path = try gzip(Array(text.utf8), in: dir, name: "t.gz", chunkSize: 8192)
        for stopAt in [1, 5_000, 150_000] {
            var count = 0
            #expect(throws: Enough.self) {
                try GzipReader(path: path).forEachLine { _, number in
                    count = number
                    if number == stopAt { throw Enough() }
                }
            }
            #expect(count == stopAt)
        }
    }
}
