import Foundation
import ShelflineCore
import ShelflineRender
import TestSupport
import Testing

@Suite struct ImportReportPageTests {
    /// Builds a finished run directory with review rows (in the two shapes the page accepts) and failed rows.
    static func finishedRun(_ temp: TemporaryDirectory, reviewJSON: String) throws -> String {
        let run = temp.file("run")
        try Workspace.makeDirectory(run)
        try Fixtures.write(Fixtures.parseReport(rowsRead: 100, rejected: 4), to: run + "/parse-report.json")
        try Fixtures.write(
            Fixtures.mergeReport(
                added: 70, updated: 20, duplicates: 6, rejected: 4, needsReview: 2,
                notEnriched: 8, matchedByIsbn: 86), to: run + "/merge-report.json")
        temp.write("run/review.json", reviewJSON)
        let csvLines = [
            "Book Id,Title,Author,ISBN13",
            #"901,"Broken, Book","Doe, Jane","=""978000000000""""#,
            "902,<script>alert(1)</script>,Anon,",
            "903,\"Multi\nline title\",X,",
        ]
        temp.write("run/failed-rows.csv", csvLines.joined(separator: "\r\n") + "\r\n")
        return run
    }

    static let reviewArray = """
        [{"line": 17, "title": "The Name of the Rose", "author": "Umberto Eco",
          "candidates": [{"key": "/books/OL1M", "title": "The Name of the Rose", "authors": ["Umberto Eco"], "score": 0.81},
                         {"key": "/books/OL2M", "title": "The Name of the Rose: Postscript", "authors": "Umberto Eco", "score": 0.74}]},
         {"line": 42, "record": {"title": "Dune", "author": "Frank Herbert"},
          "match": {"candidates": [{"key": "/works/OL3W", "title": "Dune Messiah", "authors": ["Frank Herbert"], "score": 0.6}]}}]
        """

    @Test(
        .bug(id: 6),
        arguments: [
            reviewArray,
            #"{"rows": \#(reviewArray)}"#,
            // The merge stage's own shape (ShelflineLibrary.ReviewList).
            #"{"importId": "imp-1", "items": \#(reviewArray)}"#,
            #"{"17": {"title": "The Name of the Rose", "author": "Umberto Eco", "candidates": [{"key": "/books/OL1M", "title": "The Name of the Rose", "authors": ["Umberto Eco"], "score": 0.81}]}, "42": {"title": "Dune", "author": "Frank Herbert", "candidates": [{"key": "/works/OL3W", "title": "Dune Messiah", "authors": ["Frank Herbert"], "score": 0.6}]}}"#,
        ])
    func reportListsCountsReviewAndFailedRows(_ reviewJSON: String) throws {
        let temp = TemporaryDirectory("render-report")
        let run = try Self.finishedRun(temp, reviewJSON: reviewJSON)
        let path = try ImportReportPage.write(status: try ImportRunStatus.read(runDirectory: run, files: .pipelineDefaults))
        let html = try String(contentsOfFile: path, encoding: .utf8)

        // The chart carries every outcome count.
        #expect(html.contains("<svg id=\"outcomes\""))
        for label in ["Added: 70", "Updated: 20", "Duplicate in file: 6", "Rejected: 4", "Needs review: 2", "Not enriched: 8"] {
            #expect(html.contains(label), "missing \(label)")
        }
        // Review rows with candidates.
        #expect(html.contains("Needs review (2)"))
        #expect(html.contains("The Name of the Rose"))
        #expect(html.contains("/books/OL1M"))
        #expect(html.contains("Dune Messiah"))
        #expect(html.contains(">17<") && html.contains(">42<"))
        // Rejected rows, escaped, with the source's header (issue 14 §6: no longer called failed rows).
        #expect(html.contains("Rejected rows (3)"))
        #expect(html.contains("<th>Book Id</th>"))
        #expect(html.contains("Broken, Book"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!html.contains("<script>"))
        // Self-contained: nothing fetched.
        for external in ["src=", "<link", "@import", "url(", "<script", "http://", "https://"] where external != "http://" {
            #expect(!html.contains(external), "report refers to \(external)")
        }
        #expect(!html.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "").contains("http://"))
    }

    @Test(.bug(id: 6)) func reportWithoutReviewOrFailedRowsSaysSo() throws {
        let temp = TemporaryDirectory("render-report-empty")
        let run = try Self.finishedRun(temp, reviewJSON: "[]")
        try FileManager.default.removeItem(atPath: run + "/failed-rows.csv")
        let html = try String(
            contentsOfFile: try ImportReportPage.write(
                status: try ImportRunStatus.read(runDirectory: run, files: .pipelineDefaults)), encoding: .utf8)
        #expect(html.contains("No rows need review."))
        #expect(html.contains("No rejected rows."))
        #expect(html.contains("Every imported book has metadata."))
    }

    /// Issue 14 §6: rows imported without metadata are not failed rows: their own section, file
    /// and count; and each review candidate says why it was not accepted.
    @Test(.bug(id: 14)) func notEnrichedIsNotFailedAndReviewSaysWhy() throws {
        let temp = TemporaryDirectory("render-report-words")
        let review = """
            [{"line": 7, "title": "Three Uses of the Knife", "author": "David Mamet",
              "candidates": [{"key": "/books/OL9M", "title": "Three Uses of the Knife II", "authors": ["David Mamet"], "score": 0.9,
                              "reason": "title differs in \\"ii\\""},
                             {"key": "/books/OL8M", "title": "Three Uses of the Knife", "authors": ["Ann Other"], "score": 0.7,
                              "reason": "author mismatch"}]},
             {"line": 8, "title": "Dune", "author": "Frank Herbert",
              "candidates": [{"key": "/books/OL7M", "title": "Cooking", "authors": ["Irma Rombauer"], "score": 0.2,
                              "reason": "isbnTitleConflict"}]}]
            """
        let run = try Self.finishedRun(temp, reviewJSON: review)
        try FileManager.default.removeItem(atPath: run + "/failed-rows.csv")
        let header = "Book Id,Title,Author,ISBN13"
        let unenriched = (1...5).map { "\($0),Book \($0),Author \($0)," }
        temp.write("run/not-enriched.csv", ([header] + unenriched).joined(separator: "\n") + "\n")
        let html = try String(
            contentsOfFile: try ImportReportPage.write(
                status: try ImportRunStatus.read(runDirectory: run, files: .pipelineDefaults)), encoding: .utf8)
        #expect(!html.contains("Failed rows"))
        #expect(html.contains("Rejected rows (0)"))
        #expect(html.contains("Imported without metadata (\(unenriched.count))"))
        #expect(html.contains("<table id=\"not-enriched\">"))
        #expect(html.contains("Book 5"))
        #expect(html.contains("not accepted: title differs in &quot;ii&quot;"))
        #expect(html.contains("not accepted: author mismatch"))
        #expect(html.contains("isbnTitleConflict"))
    }

    /// Rows whose every candidate the title rule ruled out are not asked about, but shown: their
    /// own section, each candidate with its reason (merge's `review.json` `ruledOut`).
    @Test(.bug(id: 21)) func candidatesRuledOutAreShownWithTheirReasons() throws {
        let temp = TemporaryDirectory("render-report-ruled-out")
        let review = """
            {"importId": "abc", "items": [],
             "ruledOut": [{"line": 9, "bookId": "b0000000000000001", "title": "Dune", "author": "Frank Herbert",
                           "candidates": [{"key": "/books/OL2M", "title": "Dune: Book Two", "authors": ["Frank Herbert"], "score": 0.8,
                                           "reason": "title differs in \\"two\\""}]}]}
            """
        let run = try Self.finishedRun(temp, reviewJSON: review)
        let html = try String(
            contentsOfFile: try ImportReportPage.write(
                status: try ImportRunStatus.read(runDirectory: run, files: .pipelineDefaults)), encoding: .utf8)
        #expect(html.contains("Needs review (0)"))
        #expect(html.contains("every candidate was another book (1)"))
        #expect(html.contains("<table id=\"ruled-out\">"))
        #expect(html.contains("Dune: Book Two"))
        #expect(html.contains("ruled out: title differs in &quot;two&quot;"))
    }
}
