import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import TestTraits
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Runs the built `shelfline-parse` in a fresh directory, as the orchestrator does.
@Suite(.offCooperativePool) struct ParseEndToEndTests {
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

    @Test(.bug(id: 2)) func parsesAndWritesRecordsRejectsAndReport() throws {
        let directory = TemporaryDirectory("parse-e2e")
        directory.write("export.csv", Self.goodreads)
        let result = try Self.run(
            [
                "export.csv", "-o", "parsed.ndjson.gz", "--rejects", "rejects.ndjson.gz",
                "--report", "parse-report.json",
            ], in: directory)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("rows_read=2"), "\(result)")
        let lines = try Self.lines(directory.file("parsed.ndjson.gz"))
        #expect(lines.count == 2)
        // The review is apart from the record, in the texts file beside it (`RecordTexts`).
        let duneLine = try JSONDecoder().decode(BookRecord.self, from: Data(lines[0].utf8))
        #expect(duneLine.review == nil && duneLine.textsApart == true)
        #expect(
            try Self.lines(directory.file("texts.ndjson.gz"))
                == [
                    #"{"byteLength":\#(duneLine.byteLength),"byteOffset":\#(duneLine.byteOffset),"line":2,"review":"Big, \"sandy\"\nbook"}"#
                ])
        let records = try RecordTexts.readRecords(path: directory.file("parsed.ndjson.gz"))
        let dune = records[0]
        #expect(dune.isbn13 == "9780441172719" && dune.series == "Dune" && dune.review == "Big, \"sandy\"\nbook")
        #expect(dune.line == 2 && dune.owned == true && dune.textsApart == nil)
        let subcutanean = records[1]
        #expect(subcutanean.line == 4 && subcutanean.rating == nil && subcutanean.isbn13 == nil && subcutanean.shelf == "to-read")
        #expect(try Self.lines(directory.file("rejects.ndjson.gz")).isEmpty)
        let report = try readJSONFile(ParseReport.self, from: directory.file("parse-report.json"))
        #expect(report.rowsRead == 2 && report.rowsWritten == 2 && report.rowsRejected == 0 && report.format == .goodreads)
        #expect(
            report.texts
                == RecordTexts.Reference(
                    file: "texts.ndjson.gz", sha256: try ContentHash.file(directory.file("texts.ndjson.gz")),
                    lines: 1))
        #expect(
            Self.files(directory) == [
                "export.csv", "parse-report.json", "parsed.ndjson.gz", "rejects.ndjson.gz", "texts.ndjson.gz",
            ])

        // Same input, same bytes.
        let again = try Self.run(["export.csv", "-o", "again.ndjson.gz", "--quiet"], in: directory)
        #expect(again.status == 0 && again.stderr.isEmpty, "\(again)")
        #expect(
            FileManager.default.contents(atPath: directory.file("again.ndjson.gz"))
                == FileManager.default.contents(atPath: directory.file("parsed.ndjson.gz")))
    }

    /// The texts file goes beside the records: an input or output already there is refused, not overwritten.
    /// An export whose records and texts run to several gzip chunks each, compressed and written
    /// from worker threads while parse reads on (issue 41): every line arrives, in order, the
    /// texts file is the one the report names by its SHA-256 (taken as it was written), and the
    /// same input gives the same bytes again.
    @Test(.bug(id: 41)) func recordsAndTextsOfManyChunksArriveWholeAndInOrder() throws {
        let directory = TemporaryDirectory("parse-e2e-chunks")
        let header = Self.goodreads.split(separator: "\n")[0]
        var export = String(header) + "\n"
        var reviews: [String] = []
        for row in 1...3000 {
            let review = "Review \(row): " + String(repeating: "a long <b>reading</b> note, row \(row); ", count: 40)
            reviews.append(review)
            export +=
                "\(row),Book \(row),Author \(row),\"\(row), Author\",,,,4,4.0,Press,Paperback,\(100 + row),2001,1999,,2024/01/15,"
            export += "read,read (#\(row)),read,\"\(review)\",,,1,0\n"
        }
        directory.write("export.csv", export)
        let result = try Self.run(["export.csv", "-o", "parsed.ndjson.gz", "--report", "report.json", "--quiet"], in: directory)
        #expect(result.status == 0, "\(result)")
        let textsPath = directory.file("texts.ndjson.gz")
        #expect(reviews.map(\.utf8.count).reduce(0, +) > 4 << 20)
        let report = try readJSONFile(ParseReport.self, from: directory.file("report.json"))
        #expect(
            report.texts == RecordTexts.Reference(file: "texts.ndjson.gz", sha256: try ContentHash.file(textsPath), lines: 3000))
        let records = try RecordTexts.readRecords(path: directory.file("parsed.ndjson.gz"))
        #expect(records.map(\.line) == Array(2...3001))
        #expect(records.map(\.review) == reviews)
        #expect(records.map(\.title) == (1...3000).map { "Book \($0)" })

        try FileManager.default.createDirectory(atPath: directory.file("again"), withIntermediateDirectories: false)
        let again = try Self.run(
            ["export.csv", "-o", "again/parsed.ndjson.gz", "--report", "again/report.json", "--quiet"], in: directory)
        #expect(again.status == 0, "\(again)")
        for name in ["parsed.ndjson.gz", "texts.ndjson.gz"] {
            #expect(
                FileManager.default.contents(atPath: directory.file("again/" + name))
                    == FileManager.default.contents(atPath: directory.file(name)), "\(name)")
        }
    }

    @Test(.bug(id: 25)) func theTextsFileCannotBeTheInputOrAnotherOutput() throws {
        let directory = TemporaryDirectory("parse-e2e")
        directory.write("texts.ndjson.gz", Self.goodreads)
        let input = try Self.run(["texts.ndjson.gz", "-o", "parsed.ndjson.gz"], in: directory)
        #expect(input.status == 64 && input.stderr.contains("an output would overwrite an input"), "\(input)")
        #expect(try String(contentsOfFile: directory.file("texts.ndjson.gz"), encoding: .utf8) == Self.goodreads)
        directory.write("export.csv", Self.goodreads)
        let output = try Self.run(["export.csv", "-o", "texts.ndjson.gz"], in: directory)
        #expect(output.status == 64 && output.stderr.contains("two outputs cannot be one file"), "\(output)")
        try FileManager.default.createDirectory(atPath: directory.file("out"), withIntermediateDirectories: true)
        let report = try Self.run(["export.csv", "-o", "out/parsed.ndjson.gz", "--report", "out/texts.ndjson.gz"], in: directory)
        #expect(report.status == 64 && report.stderr.contains("two outputs cannot be one file"), "\(report)")
    }

    @Test(.bug(id: 2)) func exampleExportParses() throws {
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

    @Test(.bug(id: 2)) func headerOnlyIsZeroRowsWithEmptyValidGzip() throws {
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
        .init(
            name: "binary garbage", contents: (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ ($0 >> 3)) },
            status: 65, message: "binary data"),
        .init(
            name: "header-less CSV", contents: Array("Dune,Frank Herbert,1965\nEmma,Jane Austen,1815\n".utf8),
            status: 65, message: "unrecognised header"),
        .init(name: "missing path", contents: nil, status: 66, message: "cannot read input"),
    ]

    @Test(.bug(id: 2), arguments: badInputs)
    func badInputIsOneLineErrorAndNoOutput(_ example: BadInput) throws {
        let directory = TemporaryDirectory("parse-e2e")
        if let contents = example.contents { directory.write("input.csv", bytes: contents) }
        directory.write("parsed.ndjson.gz", "previous good output")
        let result = try Self.run(
            [
                "input.csv", "-o", "parsed.ndjson.gz", "--rejects", "rejects.ndjson.gz",
                "--report", "report.json",
            ], in: directory)
        #expect(result.status == example.status, "\(result)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result)")
        #expect(result.stderr.hasPrefix("shelfline-parse: error: input.csv"), "\(result)")
        #expect(result.stderr.contains(example.message), "\(result)")
        // The previous output is untouched; nothing else (no temp files) was left behind.
        #expect(
            String(decoding: FileManager.default.contents(atPath: directory.file("parsed.ndjson.gz")) ?? Data(), as: UTF8.self)
                == "previous good output")
        #expect(Self.files(directory) == (example.contents == nil ? ["parsed.ndjson.gz"] : ["input.csv", "parsed.ndjson.gz"]))
    }

    @Test(.bug(id: 2)) func directoryInputIsExit66() throws {
        let directory = TemporaryDirectory("parse-e2e")
        try FileManager.default.createDirectory(atPath: directory.file("input.csv"), withIntermediateDirectories: false)
        let result = try Self.run(["input.csv", "-o", "parsed.ndjson.gz"], in: directory)
        #expect(result.status == 66, "\(result)")
        #expect(result.stderr.contains("input.csv") && result.stderr.contains("directory"), "\(result)")
        #expect(Self.files(directory) == ["input.csv"])
    }

    @Test(.bug(id: 2), .enabled(if: getuid() != 0, "root reads files whatever their mode; unreadable input cannot be staged"))
    func unreadableInputIsExit66() throws {
        let directory = TemporaryDirectory("parse-e2e")
        let input = directory.write("input.csv", Self.goodreads)
        chmod(input, 0)
        let result = try Self.run(["input.csv", "-o", "parsed.ndjson.gz"], in: directory)
        #expect(result.status == 66, "\(result)")
        #expect(result.stderr.contains("input.csv"), "\(result)")
    }

    @Test(.bug(id: 2)) func missingOutputDirectoryIsExit73() throws {
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

    @Test(.bug(id: 2)) func readOnlyOutputDirectoryIsExit73() throws {
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

    @Test(.bug(id: 2)) func tooManyRejectedIsExit65AfterWritingRejects() throws {
        let directory = TemporaryDirectory("parse-e2e")
        directory.write("export.csv", "Title,Authors,ISBN/UID,Read Status\nA,B,,read\nshort,row\n")
        directory.write(
            "strict.json", #"{"stages":[{"name":"parse","inputs":[],"outputs":[],"parameters":{"minRejectedRows":1}}]}"#)
        let result = try Self.run(
            [
                "export.csv", "-o", "parsed.ndjson.gz", "--rejects", "rejects.ndjson.gz", "--report", "r.json",
                "--config", "strict.json",
            ], in: directory)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("1 of 2 rows rejected") && result.stderr.contains("rejects.ndjson.gz"), "\(result)")
        let rejects = try Self.lines(directory.file("rejects.ndjson.gz"))
        let rejected = try JSONDecoder().decode(RejectedRow.self, from: Data(rejects[0].utf8))
        #expect(rejected.line == 3 && rejected.raw == "short,row")

        // A higher threshold in pipeline.json lets the same file through.
        directory.write(
            "pipeline.json",
            #"{"stages":[{"name":"parse","inputs":[],"outputs":[],"parameters":{"maxRejectedShare":0.5,"minRejectedRows":1}}]}"#)
        let lenient = try Self.run(["export.csv", "-o", "parsed.ndjson.gz", "--config", "pipeline.json"], in: directory)
        #expect(lenient.status == 0, "\(lenient)")
    }

    @Test(.bug(id: 2)) func badParametersAreExit78AndBadFormatExit64() throws {
        let directory = TemporaryDirectory("parse-e2e")
        directory.write("export.csv", Self.goodreads)
        directory.write(
            "pipeline.json", #"{"stages":[{"name":"parse","inputs":[],"outputs":[],"parameters":{"format":"csvish"}}]}"#)
        let config = try Self.run(["export.csv", "-o", "parsed.ndjson.gz", "--config", "pipeline.json"], in: directory)
        #expect(config.status == 78, "\(config)")
        #expect(config.stderr.contains("format"), "\(config)")
        try FileManager.default.removeItem(atPath: directory.file("pipeline.json"))
        let usage = try Self.run(["export.csv", "-o", "p.ndjson.gz", "--format", "csvish"], in: directory)
        #expect(usage.status == 64, "\(usage)")
        let forced = try Self.run(["export.csv", "-o", "p.ndjson.gz", "--format", "storygraph"], in: directory)
        #expect(forced.status == 65 && forced.stderr.contains("not a storygraph export"), "\(forced)")
    }

    @Test(.bug(id: 2)) func helpSaysWhatItReadsWritesAndExitStatuses() throws {
        let directory = TemporaryDirectory("parse-e2e")
        let result = try Self.run(["--help"], in: directory)
        #expect(result.status == 0)
        for needle in ["INPUT", "--output", "--rejects", "--report", "--format", "65", "66", "73", "Writes", "Reads"] {
            #expect(result.stdout.contains(needle), "missing \(needle) in help")
        }
    }
}

/// Issue 10 through the built executables: outputs that would destroy inputs, non-regular files,
/// CR-only exports, oversized rows, full disks. Issue 13: small files with odd rows, header-less exports.
@Suite(.offCooperativePool) struct ParseHostileInputEndToEndTests {
    static func parse(_ arguments: [String], in directory: TemporaryDirectory) throws -> ProcessResult {
        try ExecutableRunner.run("shelfline-parse", arguments, in: directory.path)
    }

    /// Runs another stage with its workspace inside `directory`.
    static func stage(_ name: String, _ arguments: [String], in directory: TemporaryDirectory) throws -> ProcessResult {
        try ExecutableRunner.run(name, arguments + ["--workspace", directory.file("ws")], in: directory.path)
    }

    static func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    static func temporaries(_ directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.contains(".tmp-") }
    }

    // MARK: 10.1

    struct Collision: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        /// The two paths the error must name.
        var named: [String]
        var testDescription: String { name }
    }

    static let parseCollisions: [Collision] = [
        .init(name: "-o is the input", arguments: ["same.csv", "-o", "same.csv"], named: ["same.csv"]),
        .init(name: "-o is ./input", arguments: ["same.csv", "-o", "./same.csv"], named: ["same.csv", "./same.csv"]),
        .init(
            name: "--report is the input", arguments: ["same.csv", "-o", "out.gz", "--report", "same.csv"], named: ["same.csv"]),
        .init(
            name: "--rejects is the input", arguments: ["same.csv", "-o", "out.gz", "--rejects", "same.csv"], named: ["same.csv"]),
        .init(
            name: "-o and --report the same new file", arguments: ["same.csv", "-o", "x.out", "--report", "x.out"],
            named: ["x.out"]),
        .init(
            name: "-o and --rejects the same via ..", arguments: ["same.csv", "-o", "sub/../r.gz", "--rejects", "r.gz"],
            named: ["sub/../r.gz", "r.gz"]),
        .init(name: "-o is a symlink to the input", arguments: ["same.csv", "-o", "link.csv"], named: ["same.csv", "link.csv"]),
        .init(
            name: "-o is a hard link to the input", arguments: ["same.csv", "-o", "hard.csv"], named: ["same.csv", "hard.csv"]),
    ]

    @Test(.bug(id: 10), arguments: parseCollisions)
    func outputThatIsTheInputIsRefused(_ example: Collision) throws {
        let directory = TemporaryDirectory("parse-collide")
        let input = directory.write("same.csv", ParseEndToEndTests.goodreads)
        try FileManager.default.createDirectory(atPath: directory.file("sub"), withIntermediateDirectories: false)
        symlink("same.csv", directory.file("link.csv"))
        link(input, directory.file("hard.csv"))
        let before = try Self.listing(directory)
        let result = try Self.parse(example.arguments, in: directory)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result)")
        #expect(result.stderr.contains("same file"), "\(result)")
        for path in example.named {
            #expect(result.stderr.contains(path), "\(path) not named: \(result)")
        }
        #expect(Self.contents(input) == Data(ParseEndToEndTests.goodreads.utf8))
        #expect(try Self.listing(directory) == before, "nothing written")
    }

    static func listing(_ directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }

    /// Every stage refuses an output that is its input (or the library), before writing anything.
    @Test(.bug(id: 10)) func everyStageRefusesOutputEqualsInput() throws {
        let directory = TemporaryDirectory("stage-collide")
        directory.write("export.csv", ParseEndToEndTests.goodreads)
        let parsed = try Self.parse(
            [
                "export.csv", "-o", "parsed.ndjson.gz", "--rejects", "rejects.ndjson.gz",
                "--report", "parse-report.json",
            ], in: directory)
        try #require(parsed.status == 0, "\(parsed)")
        let original = try #require(Self.contents(directory.file("parsed.ndjson.gz")))
        let cases: [(String, [String])] = [
            ("shelfline-dedupe", ["parsed.ndjson.gz", "-o", "parsed.ndjson.gz"]),
            ("shelfline-dedupe", ["parsed.ndjson.gz", "-o", "d.gz", "--report", "d.gz"]),
            ("shelfline-lookup", ["parsed.ndjson.gz", "-o", "parsed.ndjson.gz"]),
            ("shelfline-lookup", ["parsed.ndjson.gz", "-o", "e.gz", "--progress", "e.gz"]),
            ("shelfline-merge", ["parsed.ndjson.gz", "--parse-report", "parse-report.json", "--ledger", "parsed.ndjson.gz"]),
            ("shelfline-merge", ["parsed.ndjson.gz", "--parse-report", "parse-report.json", "--report", "parse-report.json"]),
            (
                "shelfline-merge",
                [
                    "parsed.ndjson.gz", "--parse-report", "parse-report.json", "--rejects", "rejects.ndjson.gz",
                    "--failed-rows", "rejects.ndjson.gz",
                ]
            ),
            (
                "shelfline-merge",
                [
                    "parsed.ndjson.gz", "--parse-report", "parse-report.json", "--review", "r.json",
                    "--failed-rows", "r.json",
                ]
            ),
        ]
        for (stage, arguments) in cases {
            let before = try Self.listing(directory)
            let result = try Self.stage(stage, arguments, in: directory)
            #expect(result.status == 64, "\(stage) \(arguments): \(result)")
            #expect(result.stderr.contains("same file"), "\(stage) \(arguments): \(result)")
            #expect(try Self.listing(directory) == before, "\(stage) \(arguments) wrote something")
        }
        #expect(Self.contents(directory.file("parsed.ndjson.gz")) == original)

        // merge --ledger pointing at the library itself.
        let library = directory.file("ws/library/library.ndjson.gz")
        try FileManager.default.createDirectory(atPath: directory.file("ws/library"), withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: library))
        let ledger = try Self.stage(
            "shelfline-merge",
            [
                "parsed.ndjson.gz", "--parse-report", "parse-report.json",
                "--ledger", library,
            ], in: directory)
        #expect(ledger.status == 64 && ledger.stderr.contains(library), "\(ledger)")
    }

    /// An output that is a device node or a FIFO is never replaced (73); an input that is a FIFO
    /// is refused (66) instead of blocking forever.
    @Test(.bug(id: 10)) func nonRegularOutputsAndInputsAreRefused() throws {
        let directory = TemporaryDirectory("parse-special")
        directory.write("export.csv", ParseEndToEndTests.goodreads)
        try #require(mkfifo(directory.file("fifo"), 0o644) == 0)
        for arguments in [
            ["export.csv", "-o", "/dev/null"], ["export.csv", "-o", "out.gz", "--report", "fifo"],
            ["export.csv", "-o", "out.gz", "--rejects", "/dev/null"],
        ] {
            let result = try Self.parse(arguments, in: directory)
            #expect(result.status == 73, "\(arguments): \(result)")
            #expect(result.stderr.contains("not a regular file"), "\(result)")
        }
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)
        #expect(stat(directory.file("fifo"), &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO)
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.gz")))

        for stage in ["shelfline-parse", "shelfline-dedupe", "shelfline-lookup"] {
            let result = try Self.stage(stage, ["fifo", "-o", "out.gz"], in: directory)
            #expect(result.status == 66, "\(stage): \(result)")
            #expect(result.stderr.contains("fifo") && result.stderr.contains("not a regular file"), "\(stage): \(result)")
        }
        // The whole import too (it hashes and copies the export first).
        let run = try ExecutableRunner.run(
            "shelfline",
            [
                "run", "--csv", "fifo", "--workspace", "ws", "--config",
                ExecutableRunner.repositoryRoot + "/examples/pipeline.json",
            ], in: directory.path)
        #expect(run.status == 66 && run.stderr.contains("not a regular file"), "\(run)")
    }

    // MARK: 10.2, 10.3

    /// The example export saved with CR-only line ends reads every row (it printed "0 rows read").
    @Test(.bug(id: 10)) func crOnlyLineEndsReadEveryRow() throws {
        let directory = TemporaryDirectory("parse-cr")
        let example = try String(
            contentsOfFile: ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv",
            encoding: .utf8)
        directory.write("lf.csv", example)
        directory.write("cr.csv", example.replacingOccurrences(of: "\n", with: "\r"))
        let lf = try Self.parse(["lf.csv", "-o", "lf.gz", "--report", "lf.json"], in: directory)
        let cr = try Self.parse(["cr.csv", "-o", "cr.gz", "--report", "cr.json"], in: directory)
        #expect(lf.status == 0 && cr.status == 0, "\(lf)\n\(cr)")
        let lfReport = try readJSONFile(ParseReport.self, from: directory.file("lf.json"))
        let crReport = try readJSONFile(ParseReport.self, from: directory.file("cr.json"))
        #expect(crReport.rowsRead == lfReport.rowsRead && crReport.rowsRead > 0)
        #expect(crReport.rowsWritten == lfReport.rowsWritten && crReport.header == lfReport.header)
    }

    /// A 20-row file with one row over 8 MiB: 20 rows read, 1 rejected as too large, every later
    /// line number right.
    @Test(.bug(id: 10)) func rowOver8MiBIsOneRow() throws {
        let directory = TemporaryDirectory("parse-huge")
        var lines = [ParseEndToEndTests.goodreads.split(separator: "\n")[0]].map(String.init)
        let review = "\"" + String(repeating: "word ", count: (9 << 20) / 5) + "\nsecond line\""
        for index in 1...20 {
            let reviewCell = index == 3 ? review : ""
            lines.append(
                "\(index),Book \(index),Author,\"Author\",,,,0,4.0,,Paperback,100,2020,,,2020/01/01,to-read,to-read (#1),to-read,\(reviewCell),,,0,0"
            )
        }
        directory.write("export.csv", lines.joined(separator: "\n") + "\n")
        let result = try Self.parse(["export.csv", "-o", "out.gz", "--rejects", "rej.gz", "--report", "r.json"], in: directory)
        #expect(result.status == 0, "\(result)")
        let report = try readJSONFile(ParseReport.self, from: directory.file("r.json"))
        #expect(report.rowsRead == 20 && report.rowsRejected == 1 && report.rowsWritten == 19)
        let rejects = try ParseEndToEndTests.lines(directory.file("rej.gz")).map {
            try JSONDecoder().decode(RejectedRow.self, from: Data($0.utf8))
        }
        #expect(rejects.map(\.reason) == ["row larger than 8388608 bytes"] && rejects.map(\.line) == [4])
        let records = try ParseEndToEndTests.lines(directory.file("out.gz")).map {
            try JSONDecoder().decode(BookRecord.self, from: Data($0.utf8))
        }
        #expect(records.map(\.line) == [2, 3] + Array(6...22))
    }

    /// Through the whole import: the ledger keeps every line number right after the huge row, and
    /// failed-rows.csv holds that row once, whole.
    @Test(.bug(id: 10)) func rowOver8MiBThroughTheImport() throws {
        let directory = TemporaryDirectory("import-huge")
        var lines = [ParseEndToEndTests.goodreads.split(separator: "\n")[0]].map(String.init)
        let review = "\"" + String(repeating: "word ", count: (9 << 20) / 5) + "\nsecond line\""
        for index in 1...20 {
            lines.append(
                "\(index),Book \(index),Author,\"Author\",,,,0,4.0,,Paperback,100,2020,,,2020/01/01,to-read,to-read (#1),to-read,\(index == 3 ? review : ""),,,0,0"
            )
        }
        directory.write("export.csv", lines.joined(separator: "\n") + "\n")
        let result = try ExecutableRunner.run(
            "shelfline",
            [
                "run", "--csv", "export.csv", "--workspace", "ws", "--config",
                ExecutableRunner.repositoryRoot + "/examples/pipeline.json",
                "--quiet",
            ], in: directory.path)
        #expect(result.status == 0, "\(result)")
        let run = directory.file("ws/runs/latest/")
        let ledger = try ParseEndToEndTests.lines(run + "ledger.ndjson.gz").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(ledger.count == 20)
        #expect(ledger.compactMap { $0["line"] as? Int } == [2, 3, 4] + Array(6...22))
        #expect(ledger.filter { $0["outcome"] as? String == "rejected" }.compactMap { $0["line"] as? Int } == [4])
        let failed = try #require(FileManager.default.contents(atPath: run + "failed-rows.csv"))
        let text = String(decoding: failed, as: UTF8.self)
        #expect(text.hasPrefix(lines[0] + "\n"))
        #expect(text.components(separatedBy: "second line").count == 2, "the huge row, once")
        #expect(text.contains(lines[3]))
    }

    // MARK: full disk

    /// A write that fails (file size limit, as on a full disk) removes the temporary files and
    /// exits 74; stale temporary files of dead processes are swept by the next run.
    @Test(.bug(id: 10)) func fullDiskLeavesNoTemporaryFiles() throws {
        let directory = TemporaryDirectory("parse-full")
        var lines = [String(ParseEndToEndTests.goodreads.split(separator: "\n")[0])]
        for index in 1...6000 {
            lines.append(
                "\(index),Title \(index * 7919 % 10007) \(String(index, radix: 36)),Author \(index % 97),\"A\",,,,0,4.0,,Paperback,\(index),2020,,,2020/01/01,to-read,to-read (#1),to-read,review \(index * 31),,,0,0"
            )
        }
        directory.write("export.csv", lines.joined(separator: "\n") + "\n")
        directory.write("out.gz", "previous good output")
        let parse = ExecutableRunner.path("shelfline-parse")
        func limited(_ trap: String) -> (status: Int32, pid: Int32) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            process.arguments = ["-c", "\(trap) ulimit -f 16; exec \"$0\" export.csv -o out.gz --report r.json 2>err.txt", parse]
            process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
            try? process.run()
            process.waitUntilExit()
            return (process.terminationStatus, process.processIdentifier)
        }
        // SIGXFSZ ignored: write(2) fails with EFBIG, the stage cleans up.
        let failed = limited("trap '' XFSZ;")
        #expect(failed.status == 74)
        let stderr = String(decoding: Self.contents(directory.file("err.txt")) ?? Data(), as: UTF8.self)
        #expect(stderr.contains("out.gz") && stderr.contains("I/O error"), "\(stderr)")
        #expect(Self.temporaries(directory.path).isEmpty)
        #expect(Self.contents(directory.file("out.gz")) == Data("previous good output".utf8))
        // A process killed before it could clean up (SIGKILL, or SIGXFSZ when not ignored) leaves its
        // temporary files: those of a process that no longer exists are removed by the next run,
        // those of a live process are not.
        let dead = failed.pid  // that stage has exited
        directory.write(".out.gz.tmp-\(dead)-a1b2c3", "half a gzip")
        directory.write(".library.previous.tmp-\(dead)", "half a library")
        directory.write(".out.gz.tmp-\(getpid())-d4e5f6", "a live writer's file")
        let next = try Self.parse(["export.csv", "-o", "other.gz"], in: directory)
        #expect(next.status == 0, "\(next)")
        #expect(Self.temporaries(directory.path) == [".out.gz.tmp-\(getpid())-d4e5f6"])
        #expect(Self.contents(directory.file("out.gz")) == Data("previous good output".utf8))
    }

    // MARK: 13.3, 13.4

    /// A 9-row StoryGraph export with one extra empty trailing field imports every row; with one
    /// broken row it imports the other 8 and lists the broken one, exit 0.
    @Test(.bug(id: 13)) func smallFileWithOddRowImports() throws {
        let directory = TemporaryDirectory("parse-small")
        let header =
            "Title,Authors,Contributors,ISBN/UID,Format,Read Status,Date Added,Last Date Read,Dates Read,Read Count,Moods,Pace,Character- or Plot-Driven?,Strong Character Development?,Loveable Characters?,Diverse Characters?,Flawed Characters?,Star Rating,Review,Content Warnings,Content Warning Description,Tags,Owned?"
        var rows = (1...9).map { "Book \($0),Author,,,hardcover,to-read,2021/07/17,,,0,,,,,,,,,,,,,No" }
        rows[4] += ","
        directory.write("sg.csv", ([header] + rows).joined(separator: "\r\n") + "\r\n")
        let result = try Self.parse(["sg.csv", "-o", "out.gz", "--rejects", "rej.gz", "--report", "r.json"], in: directory)
        #expect(result.status == 0, "\(result)")
        var report = try readJSONFile(ParseReport.self, from: directory.file("r.json"))
        #expect(report.rowsWritten == 9 && report.rowsRejected == 0 && report.rowsWithEmptyExtraFields == 1)

        rows[4] += "not empty"
        directory.write("sg.csv", ([header] + rows).joined(separator: "\r\n") + "\r\n")
        let odd = try Self.parse(["sg.csv", "-o", "out.gz", "--rejects", "rej.gz", "--report", "r.json"], in: directory)
        #expect(odd.status == 0, "\(odd)")
        report = try readJSONFile(ParseReport.self, from: directory.file("r.json"))
        #expect(report.rowsWritten == 8 && report.rowsRejected == 1)
        #expect(try ParseEndToEndTests.lines(directory.file("rej.gz")).count == 1)
    }

    /// A Goodreads export re-saved without its header: refused with the command that reads it,
    /// and that command (and the same setting in pipeline.json) reads it.
    @Test(.bug(id: 13)) func headerlessExportAndTheSuggestedCommand() throws {
        let directory = TemporaryDirectory("parse-headerless")
        let example = try String(
            contentsOfFile: ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv",
            encoding: .utf8)
        directory.write("with.csv", example)
        directory.write("body.csv", String(example[example.index(after: example.firstIndex(of: "\n")!)...]))
        let refused = try Self.parse(["body.csv", "-o", "out.gz", "--report", "r.json"], in: directory)
        #expect(refused.status == 65, "\(refused)")
        let command = "shelfline-parse --no-header --format goodreads body.csv -o out.gz --report r.json"
        #expect(refused.stderr.contains(command), "\(refused)")
        #expect(refused.stderr.split(separator: "\n").count == 1)

        let arguments = Array(command.split(separator: " ").dropFirst().map(String.init))
        let accepted = try Self.parse(arguments, in: directory)
        #expect(accepted.status == 0, "\(accepted)")
        let reference = try Self.parse(["with.csv", "-o", "ref.gz", "--report", "ref.json"], in: directory)
        #expect(reference.status == 0)
        let report = try readJSONFile(ParseReport.self, from: directory.file("r.json"))
        let referenceReport = try readJSONFile(ParseReport.self, from: directory.file("ref.json"))
        #expect(report.rowsRead == referenceReport.rowsRead && report.rowsWritten == referenceReport.rowsWritten)
        #expect(report.header == referenceReport.header)

        directory.write(
            "pipeline.json",
            #"{"stages":[{"name":"parse","inputs":[],"outputs":[],"parameters":{"noHeader":true,"format":"goodreads"}}]}"#)
        let configured = try Self.parse(["body.csv", "-o", "cfg.gz", "--config", "pipeline.json"], in: directory)
        #expect(configured.status == 0, "\(configured)")
        #expect(Self.contents(directory.file("cfg.gz")) == Self.contents(directory.file("out.gz")))
    }
}
