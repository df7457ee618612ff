import Foundation
import ShelflineCore
import ShelflineRender
import Testing
import TestSupport

@Suite struct ImportReportPageTests {
    /// Builds a finished run directory with review rows (in the two shapes the page accepts) and failed rows.
    static func finishedRun(_ temp: TemporaryDirectory, reviewJSON: String) throws -> String {
        let run = temp.file("run")
        try Workspace.makeDirectory(run)
        try Fixtures.write(Fixtures.parseReport(rowsRead: 100, rejected: 4), to: run + "/parse-report.json")
        try Fixtures.write(Fixtures.mergeReport(added: 70, updated: 20, duplicates: 6, rejected: 4, needsReview: 2,
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

    @Test(arguments: [
        reviewArray,
        #"{"rows": \#(reviewArray)}"#,
        #"{"17": {"title": "The Name of the Rose", "author": "Umberto Eco", "candidates": [{"key": "/books/OL1M", "title": "The Name of the Rose", "authors": ["Umberto Eco"], "score": 0.81}]}, "42": {"title": "Dune", "author": "Frank Herbert", "candidates": [{"key": "/works/OL3W", "title": "Dune Messiah", "authors": ["Frank Herbert"], "score": 0.6}]}}"#,
    ])
    func issue6_reportListsCountsReviewAndFailedRows(_ reviewJSON: String) throws {
        let temp = TemporaryDirectory("render-report")
        let run = try Self.finishedRun(temp, reviewJSON: reviewJSON)
        let path = try ImportReportPage.write(status: try ImportRunStatus.read(runDirectory: run))
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
        // Failed rows, escaped, with the source's header.
        #expect(html.contains("Failed rows (3)"))
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

    @Test func issue6_reportWithoutReviewOrFailedRows() throws {
        let temp = TemporaryDirectory("render-report-empty")
        let run = try Self.finishedRun(temp, reviewJSON: "[]")
        try FileManager.default.removeItem(atPath: run + "/failed-rows.csv")
        let html = try String(contentsOfFile: try ImportReportPage.write(status: try ImportRunStatus.read(runDirectory: run)), encoding: .utf8)
        #expect(html.contains("No rows need review."))
        #expect(html.contains("No failed rows."))
    }
}
