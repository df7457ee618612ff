import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import Testing

/// The new formats through the built executables, as a user imports them.
@Suite struct ImportFormatsEndToEndTests {
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
