import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import TestTraits
import Testing

/// A NUL byte in a cell, wherever it is in the file, is dropped and its row kept (docs/parse.md,
/// "Binary files and NUL bytes"); only a file that starts as a binary file does is refused; and
/// an export never writes a NUL. Through the built executables.
@Suite(.offCooperativePool) struct NULBytesEndToEndTests {
    let temp = TemporaryDirectory("nul-bytes")

    static let example = ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv"
    static let config = ExecutableRunner.repositoryRoot + "/examples/pipeline.json"

    /// The shipped example with NULs in row 2's title and review (the top of the file, where the
    /// whole file used to be refused as binary), then filler rows past the first 64 KiB and a last
    /// row with a NUL in its private notes (where one used to be let through into the library).
    static func exportWithNULs() throws -> (bytes: [UInt8], lastLine: Int) {
        var lines = try String(contentsOfFile: example, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
        if lines.last == "" { lines.removeLast() }
        lines[1] = lines[1].replacingOccurrences(of: "The Left Hand of Darkness", with: "The Left Hand\0 of Darkness")
            .replacingOccurrences(of: "A quiet, cold", with: "A quiet,\0 cold")
        #expect(lines[1].contains("\0 of Darkness") && lines[1].contains("quiet,\0 cold"), "the example changed: fix this test")
        var physicalLines = lines.joined(separator: "\n").split(separator: "\n", omittingEmptySubsequences: false).count
        var bytes = Array(lines.joined(separator: "\n").utf8) + [0x0A]
        var book = 900_000
        func row(_ title: String, notes: String = "") -> String {
            book += 1
            return
                "\(book),\(title),Filler Author,\"Author, Filler\",,\"=\"\"\"\"\",\"=\"\"\"\"\",3,3.5,Filler Press,Paperback,200,2001,2001,"
                + "2024/01/02,2024/01/01,,,read,,,\(notes),1,0\n"
        }
        while bytes.count < 80_000 {
            bytes += Array(row("Filler Volume \(book)").utf8)
            physicalLines += 1
        }
        bytes += Array(row("The Last Filler", notes: "kept\0 notes").utf8)
        return (bytes, physicalLines + 1)
    }

    func run(_ arguments: [String]) throws -> ProcessResult {
        try ExecutableRunner.run("shelfline", arguments + ["--config", Self.config, "--quiet"], in: temp.path)
    }

    /// The library's books as JSON objects, by title.
    func books(_ workspace: String) throws -> [String: [String: Any]] {
        var books: [String: [String: Any]] = [:]
        try GzipReader(path: workspace + "/library/library.ndjson.gz").forEachLine { bytes, _ in
            guard !bytes.isEmpty else { return }
            let book = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            books[try #require(book["title"] as? String)] = book
        }
        return books
    }

    @Test(.bug(id: 36)) func anExportWithNULBytesRoundTripsAndNoExportWritesOne() throws {
        let (csv, lastLine) = try Self.exportWithNULs()
        let input = temp.write("nul.csv", bytes: csv)
        let first = try run(["run", "--csv", input, "--workspace", temp.file("ws")])
        try #require(first.status == 0, "\(first)")
        let report = try readJSONFile(ParseReport.self, from: temp.file("ws/runs/latest/parse-report.json"))
        #expect(report.rowsRejected == 0, "\(report)")
        #expect(report.nulBytesDropped == 3, "\(report)")
        #expect(report.nulByteLines == [2, lastLine], "\(report)")
        let imported = try books(temp.file("ws"))
        let book = try #require(imported["The Left Hand of Darkness"], "\(imported.keys.sorted())")
        #expect((book["review"] as? String)?.hasPrefix("A quiet, cold, <b>brilliant</b> book.") == true, "\(book)")
        #expect(imported["The Last Filler"]?["notes"] as? String == "kept notes")
        #expect(!imported.keys.contains { $0.contains("\0") })

        for format in ["goodreads", "storygraph"] {
            let exported = temp.file("export-\(format).csv")
            let export = try run(["export", "--format", format, "-o", exported, "--workspace", temp.file("ws")])
            try #require(export.status == 0, "\(export)")
            #expect(!(try Data(contentsOf: URL(fileURLWithPath: exported))).contains(0), "\(format) export wrote a NUL")
            let again = try run(["run", "--csv", exported, "--workspace", temp.file("ws-\(format)")])
            try #require(again.status == 0, "re-import of the \(format) export: \(again)")
            let reimported = try books(temp.file("ws-\(format)"))
            #expect(Set(reimported.keys) == Set(imported.keys))
            #expect(reimported["The Left Hand of Darkness"]?["review"] as? String == book["review"] as? String)
        }
    }

    /// A library written before NULs were dropped can hold one: the export still writes none.
    @Test(.bug(id: 36)) func anExportOfALibraryHoldingANULWritesNone() throws {
        let first = try run(["run", "--csv", Self.example, "--workspace", temp.file("ws")])
        try #require(first.status == 0, "\(first)")
        let library = temp.file("ws/library/library.ndjson.gz")
        var text = ""
        try GzipReader(path: library).forEachChunk { text += String(decoding: $0, as: UTF8.self) }
        let edited = text.replacingOccurrences(of: "\"title\":\"Piranesi\"", with: "\"title\":\"Pira\\u0000nesi\"")
        try #require(edited != text, "the example changed: fix this test")
        try GzipFixture.write(text: edited, to: library)
        for format in ["goodreads", "storygraph"] {
            let exported = temp.file("export-\(format).csv")
            let export = try run(["export", "--format", format, "-o", exported, "--workspace", temp.file("ws")])
            try #require(export.status == 0, "\(export)")
            let bytes = try String(contentsOfFile: exported, encoding: .utf8)
            #expect(!bytes.contains("\0"), "\(format) export wrote a NUL")
            #expect(bytes.contains("Piranesi"), "\(format): the title loses only its NUL")
        }
    }

    struct BinaryInput: CustomTestStringConvertible, Sendable {
        var name: String
        /// The file made from the example's bytes (a directory for scratch).
        var bytes: @Sendable ([UInt8], TemporaryDirectory) throws -> [UInt8]
        var kind: String
        var testDescription: String { name }
    }

    /// Files that start as binary files do are refused whole (65, one line naming the kind).
    static let binaryInputs: [BinaryInput] = [
        .init(
            name: "gzip-compressed export",
            bytes: { csv, scratch in
                let path = try GzipFixture.write(bytes: csv, to: scratch.file("export.csv.gz"))
                return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            }, kind: "gzip"),
        .init(name: "zip archive", bytes: { csv, _ in [0x50, 0x4B, 0x03, 0x04] + csv }, kind: "zip"),
        .init(name: "PDF", bytes: { csv, _ in Array("%PDF-1.7\n".utf8) + csv }, kind: "PDF"),
        .init(
            name: "UTF-16 with a byte-order mark", bytes: { csv, _ in [0xFF, 0xFE] + csv.flatMap { [$0, 0] } }, kind: "UTF-16"),
        .init(name: "UTF-16 without a byte-order mark", bytes: { csv, _ in csv.flatMap { [$0, 0] } }, kind: "control bytes"),
        .init(name: "only NULs", bytes: { _, _ in [UInt8](repeating: 0, count: 4096) }, kind: "control bytes"),
    ]

    @Test(.bug(id: 36), arguments: binaryInputs)
    func aFileThatStartsAsBinaryIsRefusedNamingItsKind(_ example: BinaryInput) throws {
        let csv = Array(try String(contentsOfFile: Self.example, encoding: .utf8).utf8)
        let input = temp.write("input.csv", bytes: try example.bytes(csv, temp))
        let result = try ExecutableRunner.run("shelfline-parse", [input, "-o", temp.file("parsed.ndjson.gz")], in: temp.path)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("binary data (") && result.stderr.contains(example.kind), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: temp.file("parsed.ndjson.gz")))
    }
}
