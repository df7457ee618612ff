import Foundation
import ShelflineCore
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `shelfline-parse` in a fresh directory, as the orchestrator does.
@Suite struct ParseEndToEndTests {
    static let goodreads = #"""
        Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,Average Rating,Publisher,Binding,Number of Pages,Year Published,Original Publication Year,Date Read,Date Added,Bookshelves,Bookshelves with positions,Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Owned Copies
        1,"Dune (Dune, #1)",Frank Herbert,"Herbert, Frank",,"=""0441172717""","=""9780441172719""",5,4.2,Ace,Paperback,604,1990,1965,2024/03/02,2024/01/15,read,read (#1),read,"Big, ""sandy""
        book",,,1,1
        2,Subcutanean,Aaron A. Reed,"Reed, Aaron A.",,"=""""","=""""",0,4.45,,Paperback,232,2020,,,2020/03/05,to-read,to-read (#1),to-read,,,,0,0

        """#

    static func run(_ arguments: [String], in directory: TemporaryDirectory) throws -> ProcessResult {
        try ExecutableRunner.run("shelfline-parse", arguments, in: directory.path)
    }

    static func lines(_ path: String) throws -> [String] {
        var lines: [String] = []
        try GzipReader(path: path).forEachLine { bytes, _ in lines.append(String(decoding: bytes, as: UTF8.self)) }
        return lines
    }

    static func files(_ directory: TemporaryDirectory) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    @Test func issue2_parsesAndWritesRecordsRejectsAndReport() throws {
        let directory = TemporaryDirectory("parse-e2e")
        directory.write("export.csv", Self.goodreads)
        let result = try Self.run(["export.csv", "-o", "parsed.ndjson.gz", "--rejects", "rejects.ndjson.gz",
                                   "--report", "parse-report.json"], in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("rows_read=2"), "\(result)")
        let records = try Self.lines(directory.file("parsed.ndjson.gz"))
        #expect(records.count == 2)
        let dune = try JSONDecoder().decode(BookRecord.self, from: Data(records[0].utf8))
        #expect(dune.isbn13 == "9780441172719" && dune.series == "Dune" && dune.review == "Big, \"sandy\"\nbook")
        #expect(dune.line == 2 && dune.owned == true)
        let subcutanean = try JSONDecoder().decode(BookRecord.self, from: Data(records[1].utf8))
        #expect(subcutanean.line == 4 && subcutanean.rating == nil && subcutanean.isbn13 == nil && subcutanean.shelf == "to-read")
        #expect(try Self.lines(directory.file("rejects.ndjson.gz")).isEmpty)
        let report = try readJSONFile(ParseReport.self, from: directory.file("parse-report.json"))
        #expect(report.rowsRead == 2 && report.rowsWritten == 2 && report.rowsRejected == 0 && report.format == .goodreads)
        #expect(Self.files(directory) == ["export.csv", "parse-report.json", "parsed.ndjson.gz", "rejects.ndjson.gz"])

        // Same input, same bytes.
        let again = try Self.run(["export.csv", "-o", "again.ndjson.gz", "--quiet"], in: directory)
        #expect(again.status == 0 && again.stderr.isEmpty, "\(again)")
        #expect(FileManager.default.contents(atPath: directory.file("again.ndjson.gz"))
            == FileManager.default.contents(atPath: directory.file("parsed.ndjson.gz")))
    }

    @Test func issue2_examplesFileParses() throws {
        let example = ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv"
        try #require(FileManager.default.fileExists(atPath: example), "examples/goodreads_library_export.csv is missing")
        let directory = TemporaryDirectory("parse-e2e")
        let result = try Self.run([example, "-o", "parsed.ndjson.gz", "--report", "report.json", "--quiet"], in: directory)
        #expect(result.status == 0, "\(result)")
        let report = try readJSONFile(ParseReport.self, from: directory.file("report.json"))
        #expect(report.format == .goodreads && report.rowsRead > 0)
        #expect(report.rowsWritten + report.rowsRejected == report.rowsRead)
        #expect(try Self.lines(directory.file("parsed.ndjson.gz")).count == report.rowsWritten)
    }

    @Test func issue2_headerOnlyIsZeroRowsWithEmptyValidGzip() throws {
        let directory = TemporaryDirectory("parse-e2e")
        directory.write("export.csv", String(Self.goodreads.prefix { $0 != "\n" }) + "\r\n")
        let result = try Self.run(["export.csv", "-o", "parsed.ndjson.gz", "--report", "report.json"], in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(try Self.lines(directory.file("parsed.ndjson.gz")).isEmpty)
        #expect(try readJSONFile(ParseReport.self, from: directory.file("report.json")).rowsRead == 0)
    }

    struct BadInput: CustomTestStringConvertible, Sendable {
        var name: String
        var contents: [UInt8]?  // nil: the path is missing
        var status: Int32
        var message: String
        var testDescription: String { name }
    }

    static let badInputs: [BadInput] = [
        .init(name: "empty file", contents: [], status: 65, message: "empty file"),
        .init(name: "binary garbage", contents: (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ ($0 >> 3)) },
              status: 65, message: "binary data"),
        .init(name: "header-less CSV", contents: Array("Dune,Frank Herbert,1965\nEmma,Jane Austen,1815\n".utf8),
              status: 65, message: "unrecognised header"),
        .init(name: "missing path", contents: nil, status: 66, message: "cannot read input"),
    ]

    @Test(arguments: badInputs)
    func issue2_badInputIsOneLineErrorAndNoOutput(_ example: BadInput) throws {
        let directory = TemporaryDirectory("parse-e2e")
        if let contents = example.contents { directory.write("input.csv", bytes: contents) }
        directory.write("parsed.ndjson.gz", "previous good output")
        let result = try Self.run(["input.csv", "-o", "parsed.ndjson.gz", "--rejects", "rejects.ndjson.gz",
                                   "--report", "report.json"], in: directory)
        #expect(result.status == example.status, "\(result)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result)")
        #expect(result.stderr.hasPrefix("shelfline-parse: error: input.csv"), "\(result)")
        #expect(result.stderr.contains(example.message), "\(result)")
        // The previous output is untouched; nothing else (no temp files) was left behind.
        #expect(String(decoding: FileManager.default.contents(atPath: directory.file("parsed.ndjson.gz")) ?? Data(), as: UTF8.self)
            == "previous good output")
        #expect(Self.files(directory) == (example.contents == nil ? ["parsed.ndjson.gz"] : ["input.csv", "parsed.ndjson.gz"]))
    }

    @Test func issue2_directoryInputIsExit66() throws {
        let directory = TemporaryDirectory("parse-e2e")
        try FileManager.default.createDirectory(atPath: directory.file("input.csv"), withIntermediateDirectories: false)
        let result = try Self.run(["input.csv", "-o", "parsed.ndjson.gz"], in: directory)
        #expect(result.status == 66, "\(result)")
        #expect(result.stderr.contains("input.csv") && result.stderr.contains("directory"), "\(result)")
        #expect(Self.files(directory) == ["input.csv"])
    }

    @Test(.enabled(if: getuid() != 0, "root reads files whatever their mode; unreadable input cannot be staged"))
    func issue2_unreadableInputIsExit66() throws {
        let directory = TemporaryDirectory("parse-e2e")
        let input = directory.write("input.csv", Self.goodreads)
        chmod(input, 0)
        let result = try Self.run(["input.csv", "-o", "parsed.ndjson.gz"], in: directory)
        #expect(result.status == 66, "\(result)")
        #expect(result.stderr.contains("input.csv"), "\(result)")
    }

    @Test func issue2_missingOutputDirectoryIsExit73() throws {
        let directory = TemporaryDirectory("parse-e2e")
        directory.write("export.csv", Self.goodreads)
        for output in ["missing/parsed.ndjson.gz"] {
            let result = try Self.run(["export.csv", "-o", output, "--report", "report.json"], in: directory)
            #expect(result.status == 73, "\(result)")
            #expect(result.stderr.contains(output), "\(result)")
            #expect(result.stderr.split(separator: "\n").count == 1)
        }
        // The report's directory missing: the records file must not be published either.
        let result = try Self.run(["export.csv", "-o", "parsed.ndjson.gz", "--report", "nope/report.json"], in: directory)
        #expect(result.status == 73, "\(result)")
        #expect(result.stderr.contains("nope/report.json"), "\(result)")
        #expect(Self.files(directory) == ["export.csv"])
    }

    @Test func issue2_readOnlyOutputDirectoryIsExit73() throws {
        let directory = TemporaryDirectory("parse-e2e")
        directory.write("export.csv", Self.goodreads)
        // root ignores directory modes, but not a read-only mount: use /sys then.
        let target: String
        if getuid() == 0 {
            print("running as root: using read-only /sys as the output directory")
            target = "/sys/parsed.ndjson.gz"
        } else {
            try FileManager.default.createDirectory(atPath: directory.file("ro"), withIntermediateDirectories: false)
            chmod(directory.file("ro"), 0o555)
            target = "ro/parsed.ndjson.gz"
        }
        let result = try Self.run(["export.csv", "-o", target], in: directory)
        #expect(result.status == 73, "\(result)")
        #expect(result.stderr.contains(target), "\(result)")
    }

    @Test func issue2_tooManyRejectedIsExit65AfterWritingRejects() throws {
        let directory = TemporaryDirectory("parse-e2e")
        directory.write("export.csv", "Title,Authors,ISBN/UID,Read Status\nA,B,,read\nshort,row\n")
        let result = try Self.run(["export.csv", "-o", "parsed.ndjson.gz", "--rejects", "rejects.ndjson.gz", "--report", "r.json"],
                                  in: directory)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("1 of 2 rows rejected") && result.stderr.contains("rejects.ndjson.gz"), "\(result)")
        let rejects = try Self.lines(directory.file("rejects.ndjson.gz"))
        let rejected = try JSONDecoder().decode(RejectedRow.self, from: Data(rejects[0].utf8))
        #expect(rejected.line == 3 && rejected.raw == "short,row")

        // A higher threshold in pipeline.json lets the same file through.
        directory.write("pipeline.json", #"{"stages":[{"name":"parse","inputs":[],"outputs":[],"parameters":{"maxRejectedShare":0.5}}]}"#)
        let lenient = try Self.run(["export.csv", "-o", "parsed.ndjson.gz", "--config", "pipeline.json"], in: directory)
        #expect(lenient.status == 0, "\(lenient)")
    }

    @Test func issue2_badParametersAreExit78AndBadFormatExit64() throws {
        let directory = TemporaryDirectory("parse-e2e")
        directory.write("export.csv", Self.goodreads)
        directory.write("pipeline.json", #"{"stages":[{"name":"parse","inputs":[],"outputs":[],"parameters":{"format":"csvish"}}]}"#)
        let config = try Self.run(["export.csv", "-o", "parsed.ndjson.gz", "--config", "pipeline.json"], in: directory)
        #expect(config.status == 78, "\(config)")
        #expect(config.stderr.contains("format"), "\(config)")
        try FileManager.default.removeItem(atPath: directory.file("pipeline.json"))
        let usage = try Self.run(["export.csv", "-o", "p.ndjson.gz", "--format", "csvish"], in: directory)
        #expect(usage.status == 64, "\(usage)")
        let forced = try Self.run(["export.csv", "-o", "p.ndjson.gz", "--format", "storygraph"], in: directory)
        #expect(forced.status == 65 && forced.stderr.contains("not a storygraph export"), "\(forced)")
    }

    @Test func issue2_helpSaysWhatItReadsWritesAndExitStatuses() throws {
        let directory = TemporaryDirectory("parse-e2e")
        let result = try Self.run(["--help"], in: directory)
        #expect(result.status == 0)
        for needle in ["INPUT", "--output", "--rejects", "--report", "--format", "65", "66", "73", "Writes", "Reads"] {
            #expect(result.stdout.contains(needle), "missing \(needle) in help")
        }
    }
}
