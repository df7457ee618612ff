import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import TestTraits
import Testing

/// The new formats through the built executables, as a user imports them.
@Suite(.offCooperativePool) struct ImportFormatsEndToEndTests {
    static let config = ExecutableRunner.repositoryRoot + "/examples/pipeline.json"

    /// A reading log without titles goes through dedupe, lookup and merge: every row becomes a book
    /// (none rejected, each its own), not enriched, with its keys and shelf.
    @Test(.bug(id: 40)) func readingLogRowsAllReachTheLibrary() throws {
        let dir = TemporaryDirectory("formats-e2e")
        let csv = dir.write(
            "reading-log.csv",
            "Work Id,Edition Id,Bookshelf\nOL45804W,,Want to Read\nOL27448W,OL7353617M,Currently Reading\n,OL1M,Already Read\n")
        let workspace = dir.file("ws")
        let result = try ExecutableRunner.run(
            "shelfline", ["run", "--csv", csv, "--config", Self.config, "--workspace", workspace], in: dir.path)
        #expect(result.status == 0, "\(result)")
        let report = try readJSONFile(MergeReport.self, from: workspace + "/runs/latest/merge-report.json")
        #expect(report.rowsRead == 3 && report.outcomes.added == 3 && report.outcomes.rejected == 0, "\(report)")
        var books: [[String: Any]] = []
        try GzipReader(path: workspace + "/library/library.ndjson.gz").forEachLine { bytes, _ in
            books.append((try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:])
        }
        #expect(Set(books.compactMap { $0["title"] as? String }) == ["OL45804W", "OL27448W", "OL1M"])
        #expect(Set(books.compactMap { $0["shelf"] as? String }) == ["to-read", "currently-reading", "read"])
        let identifiers = books.compactMap { $0["identifiers"] as? [String: String] }
        #expect(identifiers.contains(["openlibrary-work": "OL27448W", "openlibrary-edition": "OL7353617M"]))
        #expect(books.allSatisfy { ($0["enrichment"] as? String) != "matchedByIsbn" })
    }

    /// `shelfline-parse --columns` reads a spreadsheet no format knows; `--help` lists the fields.
    @Test(.bug(id: 40)) func parseColumnsOptionReadsAnySpreadsheet() throws {
        let dir = TemporaryDirectory("formats-e2e")
        dir.write("sheet.csv", "Name,Writer,Stars\nDune,Frank Herbert,5\n")
        let refused = try ExecutableRunner.run("shelfline-parse", ["sheet.csv", "-o", "out.ndjson.gz"], in: dir.path)
        #expect(refused.status == 65 && refused.stderr.contains("--columns title=Name,author=Writer,rating=Stars"), "\(refused)")
        let read = try ExecutableRunner.run(
            "shelfline-parse", ["sheet.csv", "-o", "out.ndjson.gz", "--columns", "title=Name,author=Writer,rating=Stars"],
            in: dir.path)
        #expect(read.status == 0, "\(read)")
        var lines: [String] = []
        try GzipReader(path: dir.file("out.ndjson.gz")).forEachLine { bytes, _ in
            lines.append(String(decoding: bytes, as: UTF8.self))
        }
        #expect(lines.count == 1 && lines[0].contains("\"author\":\"Frank Herbert\"") && lines[0].contains("\"rating\":5"))
        let bad = try ExecutableRunner.run(
            "shelfline-parse", ["sheet.csv", "-o", "x.gz", "--columns", "titel=Name"], in: dir.path)
        #expect(bad.status == 64 && bad.stderr.contains("unknown field 'titel'"), "\(bad)")
        let help = try ExecutableRunner.run("shelfline-parse", ["--help"], in: dir.path)
        let flat = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains("--columns") && flat.contains("finished (dateRead)") && flat.contains("mm/dd/yyyy"), "\(help)")
        for name in ["goodreads", "storygraph", "librarything", "calibre", "bookwyrm", "openreads", "openlibrary", "generic"] {
            #expect(flat.contains(name), "\(name)")
        }
    }

    /// A row the source marks as not to import (an Openreads book in its bin) is skipped: counted in
    /// the parse report, the merge outcomes and the summary line, in the ledger as skipped, and not
    /// a failed row; every row still has exactly one outcome.
    @Test(.bug(id: 40)) func rowsTheSourceDeletedAreSkippedNotRejected() throws {
        let dir = TemporaryDirectory("formats-e2e")
        let csv = dir.write(
            "openreads.csv",
            "title,author,status,deleted,olid\nKept,A Writer,finished,false,\nBinned,B Writer,planned,true,\n"
                + "Also kept,C Writer,planned,false,\n")
        let workspace = dir.file("ws")
        let result = try ExecutableRunner.run(
            "shelfline", ["run", "--csv", csv, "--config", Self.config, "--workspace", workspace], in: dir.path)
        #expect(result.status == 0, "\(result)")
        let run = workspace + "/runs/latest"
        let parse = try readJSONFile(ParseReport.self, from: run + "/parse-report.json")
        #expect(parse.rowsRead == 3 && parse.rowsWritten == 2 && parse.rowsRejected == 0 && parse.rowsSkipped == 1, "\(parse)")
        let report = try readJSONFile(MergeReport.self, from: run + "/merge-report.json")
        #expect(report.outcomes.skipped == 1 && report.outcomes.rejected == 0 && report.outcomes.added == 2, "\(report)")
        #expect(report.outcomes.total == report.rowsRead)
        #expect(result.stdout.contains("0 rejected, 1 skipped"), "\(result)")
        var ledger: [String] = []
        try GzipReader(path: run + "/ledger.ndjson.gz").forEachLine { bytes, _ in
            ledger.append(String(decoding: bytes, as: UTF8.self))
        }
        #expect(ledger.count == 3 && ledger.contains { $0.contains("\"line\":3") && $0.contains("\"outcome\":\"skipped\"") })
        let failed = try String(contentsOfFile: run + "/" + report.failedRows, encoding: .utf8)
        #expect(!failed.contains("Binned"), "\(failed)")
        let page = try String(contentsOfFile: run + "/report.html", encoding: .utf8)
        #expect(page.contains("Rejected: 0, Skipped: 1"), "the report page's outcomes sum to the rows read")
    }

    /// `shelfline run --columns` reads a spreadsheet no format knows, overriding the config's
    /// columns for that run (a changed mapping parses again); a bad map is 64 naming the entry, and
    /// `--help` lists the fields as `shelfline-parse --help` does.
    @Test(.bug(id: 40)) func runColumnsOptionOverridesTheConfig() throws {
        let dir = TemporaryDirectory("formats-e2e")
        let csv = dir.write("sheet.csv", "Name,Writer,Stars\nDune,Frank Herbert,5\n")
        var edited = try ConfigFile.shippedExample()
        edited.editParameters(of: "parse") { $0["columns"] = ["title": "Writer", "author": "Name"] }
        let config = try edited.write(to: dir.file("pipeline.json"))
        let workspace = dir.file("ws")
        func run(_ extra: [String]) throws -> ProcessResult {
            try ExecutableRunner.run(
                "shelfline", ["run", "--csv", csv, "--config", config, "--workspace", workspace, "--quiet"] + extra,
                in: dir.path)
        }
        func books() throws -> [[String: Any]] {
            var books: [[String: Any]] = []
            try GzipReader(path: workspace + "/library/library.ndjson.gz").forEachLine { bytes, _ in
                books.append((try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:])
            }
            return books
        }
        let first = try run(["--columns", "title=Name,author=Writer"])
        #expect(first.status == 0, "\(first)")
        let book = try #require(try books().first)
        #expect(book["title"] as? String == "Dune" && book["author"] as? String == "Frank Herbert" && book["rating"] == nil)
        let second = try run(["--columns", "title=Name,author=Writer,rating=Stars"])
        #expect(second.status == 0, "\(second)")
        #expect(try books().map { $0["rating"] as? Double } == [5], "a changed mapping parses the file again")
        let bad = try run(["--columns", "title=Name,auther=Writer"])
        #expect(bad.status == 64 && bad.stderr.contains("unknown field 'auther'"), "\(bad)")
        let help = try ExecutableRunner.run("shelfline", ["run", "--help"], in: dir.path)
        let flat = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains("--columns") && flat.contains("finished (dateRead)") && flat.contains("mm/dd/yyyy"), "\(help)")
    }

    /// bench/bookwyrm: every sample of the eight formats BookWyrm reads is kept, and what BookWyrm's
    /// importer reads from each row agrees with Shelfline's library, field by field.
    @Test(.bug(id: 40)) func bookWyrmReadsWhatTheLibraryHolds() throws {
        let script = ExecutableRunner.repositoryRoot + "/bench/bookwyrm/run.sh"
        let result = try ExecutableRunner.run(
            "/bin/bash", [script], environment: ["SHELFLINE_BIN": ExecutableRunner.productsDirectory])
        #expect(result.status == 0 && result.stdout.contains("total: 0 disagreements, 0 rows not kept"), "\(result)")
    }

    /// BookWyrm's review title and content warning reach the library and `export --format ndjson`;
    /// a later import's non-empty cell replaces one, an empty cell keeps it.
    @Test(.bug(id: 37)) func bookWyrmReviewTitleAndWarningReachTheLibrary() throws {
        let dir = TemporaryDirectory("formats-e2e")
        let header = "title,author_text,remote_id,isbn_13,rating,review_name,review_cw,review_content,shelf,shelf_name\n"
        let row = "Kindred,Octavia E. Butler,https://books.example/book/31,9780807083055,5"
        let workspace = dir.file("ws")
        for (name, cells) in [
            ("first.csv", ",Hard reading ,violence,<p>Yes.</p>"), ("second.csv", ",Harder reading,,<p>Yes.</p>"),
        ] {
            let csv = dir.write(name, header + row + cells + ",read,Read\n")
            let result = try ExecutableRunner.run(
                "shelfline", ["run", "--csv", csv, "--config", Self.config, "--workspace", workspace], in: dir.path)
            #expect(result.status == 0, "\(result)")
        }
        let export = try ExecutableRunner.run(
            "shelfline", ["export", "--format", "ndjson", "--config", Self.config, "--workspace", workspace], in: dir.path)
        #expect(export.status == 0, "\(export)")
        let book = try JSONSerialization.jsonObject(with: Data(export.stdout.utf8)) as? [String: Any]
        #expect(book?["reviewName"] as? String == "Harder reading", "\(export.stdout)")
        #expect(book?["reviewContentWarning"] as? String == "violence", "\(export.stdout)")
    }
}
