import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import TestTraits
import Testing

/// Issue 3 end to end: the built `shelfline-dedupe` and `shelfline-merge` on NDJSON written here.
@Suite(.offCooperativePool) struct LibraryEndToEndTests {
    let temp = TemporaryDirectory("library-e2e")

    /// Writes records (and a matching source CSV and parse report) for `titles` into `name/`.
    @discardableResult
    func writeImport(_ name: String, _ books: [(title: String, author: String, isbn: String?)]) throws -> String {
        let directory = temp.file(name)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let header = "Book Id,Title,Author,ISBN13"
        var source = header + "\n"
        var records: [BookRecord] = []
        for (index, book) in books.enumerated() {
            let raw = "\(index + 1),\(book.title),\(book.author),\(book.isbn ?? "")"
            var record = BookRecord(
                format: .goodreads, line: index + 2, byteOffset: source.utf8.count,
                byteLength: raw.utf8.count, title: book.title)
            record.author = book.author
            record.isbn13 = book.isbn
            record.shelf = "read"
            source += raw + "\n"
            records.append(record)
        }
        try GzipFixture.write(records, to: directory + "/parsed.ndjson.gz")
        try Data(source.utf8).write(to: URL(fileURLWithPath: directory + "/export.csv"))
        try GzipFixture.write([RejectedRow](), to: directory + "/rejects.ndjson.gz")
        let report = ParseReport(
            input: directory + "/export.csv", format: .goodreads, delimiter: ",",
            header: header.components(separatedBy: ","), headerByteOffset: 0,
            headerByteLength: header.utf8.count, rowsRead: books.count, rowsWritten: books.count,
            rowsRejected: 0, fieldsRepaired: 0)
        try writeJSONFile(report, to: directory + "/parse-report.json")
        return directory
    }

    var workspace: String { temp.file("ws") }
    var library: String { workspace + "/library/library.ndjson.gz" }

    func dedupe(_ run: String) throws -> ProcessResult {
        try ExecutableRunner.run(
            "shelfline-dedupe",
            [
                "parsed.ndjson.gz", "-o", "deduped.ndjson.gz", "--report",
                "dedupe-report.json", "--workspace", workspace,
            ], in: run)
    }

    func mergeProcess(_ run: String, input: String, importId: String) -> Process {
        let process = ExecutableRunner.start(
            "shelfline-merge",
            [
                input, "--parse-report", "parse-report.json", "--rejects", "rejects.ndjson.gz",
                "--import-id", importId, "--workspace", workspace, "--quiet",
            ], in: run)
        process.standardError = FileHandle.nullDevice
        return process
    }

    func merge(_ run: String, input: String = "deduped.ndjson.gz", importId: String = "run") throws -> ProcessResult {
        try ExecutableRunner.run(
            "shelfline-merge",
            [
                input, "--parse-report", "parse-report.json", "--rejects",
                "rejects.ndjson.gz", "--report", "merge-report.json", "--ledger",
                "ledger.ndjson.gz", "--review", "review.json", "--failed-rows",
                "failed-rows.csv", "--import-id", importId, "--workspace", workspace,
            ],
            in: run)
    }

    func books() throws -> [[String: Any]] {
        let reader = try GzipReader(path: library)
        var books: [[String: Any]] = []
        try reader.forEachLine { bytes, _ in
            books.append(try JSONSerialization.jsonObject(with: Data(bytes)) as! [String: Any])
        }
        return books
    }

    @Test(.bug(id: 3)) func dedupeThenMergeTwiceIsByteIdentical() throws {
        let run = try writeImport(
            "r1",
            [
                ("Dune", "Frank Herbert", "9780441172719"), ("Emma", "Jane Austen", nil),
                ("Dune", "Herbert, Frank", nil),
            ])
        let deduped = try dedupe(run)
        #expect(deduped.status == 0, "\(deduped)")
        let merged = try merge(run, importId: "first")
        #expect(merged.status == 0, "\(merged)")
        let report =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run + "/merge-report.json")))
            as! [String: Any]
        let outcomes = report["outcomes"] as! [String: Int]
        #expect(outcomes["added"] == 2)
        #expect(outcomes["duplicateInFile"] == 1)
        #expect(outcomes.values.reduce(0, +) == report["rowsRead"] as? Int)
        #expect(try books().count == 2)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: library))

        // The same file again, through both stages, with another import id.
        #expect(try dedupe(run).status == 0)
        let again = try merge(run, importId: "second")
        #expect(again.status == 0, "\(again)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: library)) == bytes)
        // Issue 14 §6: a row imported without metadata is not a failed row; it has its own file.
        let csv = try String(contentsOfFile: run + "/not-enriched.csv", encoding: .utf8)
        #expect(csv.hasPrefix("Book Id,Title,Author,ISBN13\n1,Dune,Frank Herbert,9780441172719\n"))
    }

    func outcomes(_ run: String) throws -> [String: Int] {
        let report =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run + "/merge-report.json")))
            as! [String: Any]
        return report["outcomes"] as! [String: Int]
    }

    func ledgerLines(_ run: String) throws -> [String] {
        var lines: [String] = []
        try GzipReader(path: run + "/ledger.ndjson.gz").forEachLine { bytes, _ in
            lines.append(String(decoding: bytes, as: UTF8.self))
        }
        return lines
    }

    @Test(.bug(id: 10)) func rerunMergeAfterPublishKeepsAdded() throws {
        // The state a SIGKILL right after the library's publish leaves, or `clean --stage merge`:
        // the library holds this import's books, the merge outputs are gone. The rerun reports the same.
        let earlier = try writeImport("earlier", [("Dune", "Frank Herbert", "9780441172719")])
        #expect(try merge(earlier, input: "parsed.ndjson.gz", importId: "run-0").status == 0)
        let run = try writeImport(
            "this",
            [
                ("Dune", "Frank Herbert", "9780441172719"), ("Emma", "Jane Austen", nil),
                ("Kindred", "Octavia E. Butler", "9780807083697"),
            ])
        #expect(try dedupe(run).status == 0)
        let first = try merge(run, importId: "run-1")
        #expect(first.status == 0, "\(first)")
        let expected = try outcomes(run)
        #expect(expected["added"] == 2)
        #expect(expected["updated"] == 1)
        let ledger = try ledgerLines(run)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: library))
        for name in ["merge-report.json", "ledger.ndjson.gz", "review.json", "failed-rows.csv"] {
            try FileManager.default.removeItem(atPath: run + "/" + name)
        }
        let again = try merge(run, importId: "run-1")
        #expect(again.status == 0, "\(again)")
        #expect(try outcomes(run) == expected)
        #expect(try ledgerLines(run) == ledger)
        #expect(try Data(contentsOf: URL(fileURLWithPath: library)) == bytes)
    }

    @Test(.bug(id: 10)) func truncatedDedupedRebuiltKeepsAdded() throws {
        let run = try writeImport("rebuilt", [("Emma", "Jane Austen", nil), ("Persuasion", "Jane Austen", nil)])
        #expect(try dedupe(run).status == 0)
        #expect(try merge(run, importId: "run-1").status == 0)
        let expected = try outcomes(run)
        #expect(expected["added"] == 2)
        let deduped = try Data(contentsOf: URL(fileURLWithPath: run + "/deduped.ndjson.gz"))
        try deduped.prefix(deduped.count / 2).write(to: URL(fileURLWithPath: run + "/deduped.ndjson.gz"))
        #expect(try merge(run, importId: "run-1").status == 65)
        #expect(try dedupe(run).status == 0)
        let again = try merge(run, importId: "run-1")
        #expect(again.status == 0, "\(again)")
        #expect(try outcomes(run) == expected)
    }

    @Test(.bug(id: 3)) func truncatedIntermediateExits65AndLeavesTheLibrary() throws {
        let good = try writeImport("good", [("Dune", "Frank Herbert", nil)])
        #expect(try merge(good, input: "parsed.ndjson.gz").status == 0)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: library))
        let bad = try writeImport("bad", [("Emma", "Jane Austen", nil), ("Persuasion", "Jane Austen", nil)])
        let parsed = try Data(contentsOf: URL(fileURLWithPath: bad + "/parsed.ndjson.gz"))
        try parsed.prefix(parsed.count - 5).write(to: URL(fileURLWithPath: bad + "/parsed.ndjson.gz"))
        let deduped = try dedupe(bad)
        #expect(deduped.status == 65, "\(deduped)")
        #expect(deduped.stderr.contains("parsed.ndjson.gz"))
        let merged = try merge(bad, input: "parsed.ndjson.gz")
        #expect(merged.status == 65, "\(merged)")
        #expect(merged.stderr.contains("parsed.ndjson.gz"))
        #expect(merged.stderr.split(separator: "\n").count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: library)) == bytes)
        #expect(!FileManager.default.fileExists(atPath: bad + "/merge-report.json"))
        let missing = try ExecutableRunner.run(
            "shelfline-dedupe", ["nope.ndjson.gz", "-o", "x.ndjson.gz", "--workspace", workspace], in: bad)
        #expect(missing.status == 66, "\(missing)")
    }

    @Test(.bug(id: 3)) func corruptLibraryIsRefusedWithRecoveryAdvice() throws {
        let first = try writeImport("one", [("Dune", "Frank Herbert", nil)])
        #expect(try merge(first, input: "parsed.ndjson.gz").status == 0)
        let second = try writeImport("two", [("Emma", "Jane Austen", nil)])
        #expect(try merge(second, input: "parsed.ndjson.gz").status == 0)
        #expect(FileManager.default.fileExists(atPath: workspace + "/library/library.previous.ndjson.gz"))
        try Data("{\"id\":\"not a book\"}\n".utf8).write(to: URL(fileURLWithPath: library))  // not even gzip
        let garbage = try Data(contentsOf: URL(fileURLWithPath: library))
        let merged = try merge(first, input: "parsed.ndjson.gz", importId: "again")
        #expect(merged.status == 65, "\(merged)")
        #expect(merged.stderr.contains("library.previous.ndjson.gz"))
        #expect(merged.stderr.contains("untouched"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: library)) == garbage)
        #expect(try dedupe(first).status == 65)
    }

    @Test(.bug(id: 3)) func concurrentMergesLoseNoBooks() throws {
        let runs = try (0..<3).map { index in
            try writeImport("c\(index)", (0..<200).map { ("Book \(index)-\($0)", "Author \(index)", nil) })
        }
        let processes = runs.enumerated().map { mergeProcess($1, input: "parsed.ndjson.gz", importId: "c\($0)") }
        for process in processes { try process.run() }
        for process in processes { process.waitUntilExit() }
        #expect(processes.allSatisfy { $0.terminationStatus == 0 })
        #expect(try books().count == 600)
    }

    @Test(.bug(id: 3)) func helpSaysWhatItReadsWritesAndExitStatuses() throws {
        for name in ["shelfline-dedupe", "shelfline-merge"] {
            let help = try ExecutableRunner.run(name, ["--help"])
            #expect(help.status == 0)
            #expect(help.stdout.contains("library.ndjson.gz"), "\(help)")
            #expect(help.stdout.contains("65"), "\(help)")
        }
    }
}

/// The real exports of one person (Goodreads, then StoryGraph) through parse, dedupe and merge.
@Suite(.offCooperativePool) struct LibraryEndToEndCorpusTests {
    /// `$SHELFLINE_CORPUS`, else `../shared/corpus` beside the repository (or beside a worktree's parent).
    static let corpus: String = {
        let candidates =
            [ProcessInfo.processInfo.environment["SHELFLINE_CORPUS"]].compactMap { $0 }
            + [ExecutableRunner.repositoryRoot + "/../shared/corpus", ExecutableRunner.repositoryRoot + "/../../shared/corpus"]
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/sg_crlf_quarter-stars_bsanser.csv") }
            ?? candidates[0]
    }()
    static let present: Bool = {
        let present = FileManager.default.fileExists(atPath: corpus + "/sg_crlf_quarter-stars_bsanser.csv")
        if !present { print("SKIP LibraryEndToEndCorpusTests: no corpus at \(corpus) (set SHELFLINE_CORPUS)") }
        return present
    }()

    @Test(.bug(id: 3), .enabled(if: present)) func realGoodreadsAndStoryGraphExportsMerge() throws {
        let temp = TemporaryDirectory("library-corpus")
        let workspace = temp.file("ws")
        var reports: [[String: Any]] = []
        for (name, file) in [("gr", "gr_24col_2025_bsanser.csv"), ("sg", "sg_crlf_quarter-stars_bsanser.csv")] {
            let run = temp.file(name)
            try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
            let parsed = try ExecutableRunner.run(
                "shelfline-parse",
                [
                    Self.corpus + "/" + file, "-o", "parsed.ndjson.gz", "--rejects",
                    "rejects.ndjson.gz", "--report", "parse-report.json",
                ], in: run)
            #expect(parsed.status == 0, "\(parsed)")
            let deduped = try ExecutableRunner.run(
                "shelfline-dedupe", ["parsed.ndjson.gz", "-o", "deduped.ndjson.gz", "--workspace", workspace], in: run)
            #expect(deduped.status == 0, "\(deduped)")
            let merged = try ExecutableRunner.run(
                "shelfline-merge",
                [
                    "deduped.ndjson.gz", "--parse-report", "parse-report.json",
                    "--rejects", "rejects.ndjson.gz", "--import-id", name,
                    "--workspace", workspace,
                ], in: run)
            #expect(merged.status == 0, "\(merged)")
            reports.append(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: run + "/merge-report.json")))
                    as! [String: Any])
        }
        let outcomes = reports.map { $0["outcomes"] as! [String: Int] }
        for (report, outcome) in zip(reports, outcomes) {
            #expect(outcome.values.reduce(0, +) == report["rowsRead"] as? Int)
        }
        // Every StoryGraph row either joined a Goodreads book or added one: the library holds exactly
        // the books both imports added, and most StoryGraph rows are the same person's Goodreads books.
        #expect(reports[1]["libraryBooks"] as? Int == outcomes[0]["added"]! + outcomes[1]["added"]!)
        #expect(outcomes[1]["updated"]! * 2 > reports[1]["rowsRead"] as! Int)
        // Importing the StoryGraph export again changes nothing.
        let library = workspace + "/library/library.ndjson.gz"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: library))
        let again = try ExecutableRunner.run(
            "shelfline-merge",
            [
                "deduped.ndjson.gz", "--parse-report", "parse-report.json",
                "--rejects", "rejects.ndjson.gz", "--import-id", "sg-again",
                "--workspace", workspace,
            ], in: temp.file("sg"))
        #expect(again.status == 0, "\(again)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: library)) == bytes)
    }
}
