import Foundation
import ShelflineCore
import ShelflineRender
import ShelflineReports
import TestSupport
import Testing

@Suite struct ImportReportPageTests {
    /// Builds a finished run directory with review rows (`review.json` as merge writes it) and failed rows.
    static func finishedRun(_ temp: TemporaryDirectory, review: ReviewList) throws -> String {
        let run = temp.file("run")
        try Workspace.makeDirectory(run)
        try Fixtures.write(Fixtures.parseReport(rowsRead: 100, rejected: 4), to: run + "/parse-report.json")
        try Fixtures.write(
            Fixtures.mergeReport(
                added: 70, updated: 20, duplicates: 6, rejected: 4, needsReview: 2,
                notEnriched: 8, matchedByIsbn: 86), to: run + "/merge-report.json")
        try Fixtures.write(review, to: run + "/review.json")
        let csvLines = [
            "Book Id,Title,Author,ISBN13",
            #"901,"Broken, Book","Doe, Jane","=""978000000000""""#,
            "902,<script>alert(1)</script>,Anon,",
            "903,\"Multi\nline title\",X,",
        ]
        temp.write("run/failed-rows.csv", csvLines.joined(separator: "\r\n") + "\r\n")
        return run
    }

    static func item(_ line: Int, _ title: String, _ author: String, _ candidates: [MatchCandidate]) -> ReviewItem {
        ReviewItem(
            line: line, bookId: String(format: "b%016d", line), title: title, author: author, isbn13: nil,
            candidates: candidates)
    }

    static func candidate(_ key: String, _ title: String, _ author: String, _ score: Double, _ reason: String? = nil)
        -> MatchCandidate
    {
        MatchCandidate(key: key, title: title, authors: [author], score: score, reason: reason)
    }

    /// The page written for `run`, as text.
    static func page(_ run: String) throws -> String {
        try String(
            contentsOfFile: try ImportReportPage.write(
                status: try ImportRunStatus.read(runDirectory: run, files: .pipelineDefaults)), encoding: .utf8)
    }

    static let review = ReviewList(
        importId: "imp-1",
        items: [
            item(
                17, "The Name of the Rose", "Umberto Eco",
                [
                    candidate("/books/OL1M", "The Name of the Rose", "Umberto Eco", 0.81),
                    candidate("/books/OL2M", "The Name of the Rose: Postscript", "Umberto Eco", 0.74),
                ]),
            item(
                42, "Dune", "Frank Herbert",
                [candidate("/works/OL3W", "Dune Messiah", "Frank Herbert", 0.6)]),
        ])

    @Test(.bug(id: 6))
    func reportListsCountsReviewAndFailedRows() throws {
        let temp = TemporaryDirectory("render-report")
        let run = try Self.finishedRun(temp, review: Self.review)
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
        let run = try Self.finishedRun(temp, review: ReviewList(importId: "imp-1", items: []))
        try FileManager.default.removeItem(atPath: run + "/failed-rows.csv")
        let html = try Self.page(run)
        #expect(html.contains("No rows need review."))
        #expect(html.contains("No rejected rows."))
        #expect(html.contains("Every imported book has metadata."))
    }

    /// Issue 14 §6: rows imported without metadata are not failed rows: their own section, file
    /// and count; and each review candidate says why it was not accepted.
    @Test(.bug(id: 14)) func notEnrichedIsNotFailedAndReviewSaysWhy() throws {
        let temp = TemporaryDirectory("render-report-words")
        let review = ReviewList(
            importId: "imp-1",
            items: [
                Self.item(
                    7, "Three Uses of the Knife", "David Mamet",
                    [
                        Self.candidate(
                            "/books/OL9M", "Three Uses of the Knife II", "David Mamet", 0.9, "title differs in \"ii\""),
                        Self.candidate("/books/OL8M", "Three Uses of the Knife", "Ann Other", 0.7, "author mismatch"),
                    ]),
                Self.item(
                    8, "Dune", "Frank Herbert",
                    [
                        Self.candidate("/books/OL7M", "Cooking", "Irma Rombauer", 0.2, "isbnTitleConflict")
                    ]),
            ])
        let run = try Self.finishedRun(temp, review: review)
        try FileManager.default.removeItem(atPath: run + "/failed-rows.csv")
        let header = "Book Id,Title,Author,ISBN13"
        let unenriched = (1...5).map { "\($0),Book \($0),Author \($0)," }
        temp.write("run/not-enriched.csv", ([header] + unenriched).joined(separator: "\n") + "\n")
        let html = try Self.page(run)
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
        let review = ReviewList(
            importId: "abc", items: [],
            ruledOut: [
                Self.item(
                    9, "Dune", "Frank Herbert",
                    [
                        Self.candidate("/books/OL2M", "Dune: Book Two", "Frank Herbert", 0.8, "title differs in \"two\"")
                    ])
            ])
        let run = try Self.finishedRun(temp, review: review)
        let html = try Self.page(run)
        #expect(html.contains("Needs review (0)"))
        #expect(html.contains("every candidate was another book (1)"))
        #expect(html.contains("<table id=\"ruled-out\">"))
        #expect(html.contains("Dune: Book Two"))
        #expect(html.contains("ruled out: title differs in &quot;two&quot;"))
    }

    /// The page reads `review.json` with merge's own type: a file in any other shape is no guess
    /// but an error naming it (render's 65), and the page is not written.
    @Test(.bug(id: 37)) func reviewFileNotAsMergeWritesItIsAnErrorNamingIt() throws {
        let temp = TemporaryDirectory("render-report-review-shape")
        let run = try Self.finishedRun(temp, review: Self.review)
        temp.write("run/review.json", #"{"rows": [{"line": 17, "title": "Dune", "candidates": []}]}"#)
        #expect {
            try ImportReportPage.write(status: try ImportRunStatus.read(runDirectory: run, files: .pipelineDefaults))
        } throws: { error in
            "\(error)".contains("review.json")
        }
        #expect(!FileManager.default.fileExists(atPath: run + "/report.html"))
    }

    /// Issue 39: when more than one metadata source matched, the page lists each source's matches
    /// by ISBN and by search, most first; with one source it shows no such table.
    @Test(.bug(id: 39)) func reportListsMatchesPerSourceWhenSeveralMatched() throws {
        let temp = TemporaryDirectory("render-report-sources")
        let run = try Self.finishedRun(temp, review: Self.review)
        var merge = Fixtures.mergeReport(
            added: 70, updated: 20, duplicates: 6, rejected: 4, needsReview: 2, notEnriched: 8, matchedByIsbn: 80)
        merge.enrichment.matchedBySearch = 6
        merge.enrichment.isbnBySource = ["openlibrary": 61, "googlebooks": 19]
        merge.enrichment.searchBySource = ["openlibrary": 5, "isbndb": 1]
        try Fixtures.write(merge, to: run + "/merge-report.json")
        let html = try Self.page(run)
        let table = try #require(html.components(separatedBy: "<table id=\"sources\">").dropFirst().first)
            .components(separatedBy: "</table>")[0]
        let rows = table.components(separatedBy: "<tr>").dropFirst().dropFirst().map {
            $0.components(separatedBy: "<td").dropFirst().map { cell in
                String(cell.drop { $0 != ">" }.dropFirst().prefix { $0 != "<" })
            }
        }
        #expect(
            rows == [["openlibrary", "61", "5"], ["googlebooks", "19", "0"], ["isbndb", "0", "1"]], "\(table)")

        merge.enrichment.isbnBySource = ["openlibrary": 80]
        merge.enrichment.searchBySource = ["openlibrary": 6]
        try Fixtures.write(merge, to: run + "/merge-report.json")
        #expect(!(try Self.page(run)).contains("id=\"sources\""))
    }

    /// A review table longer than `reportMaximumRows` says how many more rows review.json holds.
    @Test func reviewTablesPastTheRowLimitSayWhereTheRestAre() throws {
        let temp = TemporaryDirectory("render-report-row-limit")
        let run = try Self.finishedRun(
            temp, review: ReviewList(importId: "imp-1", items: Self.review.items, ruledOut: Self.review.items))
        var parameters = RenderParameters()
        parameters.reportMaximumRows = 1
        let path = try ImportReportPage.write(
            status: try ImportRunStatus.read(runDirectory: run, files: .pipelineDefaults), parameters: parameters)
        let html = try String(contentsOfFile: path, encoding: .utf8)
        #expect(html.contains("</table></div>\n<p class=\"muted\">… and 1 more in review.json.</p>\n"))
        #expect(html.contains("</table></div>\n<p class=\"muted\">… and 1 more in review.json (<code>ruledOut</code>).</p>\n"))
    }
}
