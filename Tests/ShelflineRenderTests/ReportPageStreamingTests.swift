import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import Testing

@testable import ShelflineRender

/// Issue 12: the report page streams failed-rows.csv and caps its rows instead of holding the file.
@Suite struct ReportPageStreamingTests {
    /// A failed-rows CSV whose quoted, multi-line and non-ASCII fields cross the reader's 64 KiB pieces.
    static func csv(rows: Int) -> String {
        var text = "Book Id,Title,Author\r\n"
        for index in 1...rows {
            let title = index % 3 == 0 ? "\"Title \(index), with \"\"quotes\"\"\nand a line\"" : "Tïtle \(index) — ✓"
            text += "\(index),\(title),Author \(index % 11)\r\n"
        }
        return text
    }

    @Test(.bug(id: 12)) func failedRowsStreamedMatchesWholeFileParse() throws {
        let temp = TemporaryDirectory("render-failed-stream")
        let text = Self.csv(rows: 4000)
        temp.write("failed-rows.csv", text)
        let whole = try ImportReportPage.exportRows(path: temp.file("failed-rows.csv"), maximumRows: .max).rows
        #expect(whole.count == 4001)
        for cap in [0, 1, 10, 3999, 4000, 10_000] {
            let streamed = try ImportReportPage.exportRows(path: temp.file("failed-rows.csv"), maximumRows: cap)
            #expect(streamed.dataRows == 4000)
            #expect(streamed.rows == Array(whole.prefix(cap + 1)))
        }
        #expect(whole[3] == ["3", "Title 3, with \"quotes\"\nand a line", "Author 3"])
        #expect(whole[4] == ["4", "Tïtle 4 — ✓", "Author 4"])
        #expect(try ImportReportPage.exportRows(path: temp.file("absent.csv"), maximumRows: 5).dataRows == 0)
    }

    @Test(.bug(id: 12)) func reportPageCountsEveryFailedRowButListsTheCap() throws {
        let temp = TemporaryDirectory("render-failed-cap")
        let run = temp.file("run")
        try Workspace.makeDirectory(run)
        try Fixtures.write(Fixtures.parseReport(rowsRead: 5000, rejected: 0), to: run + "/parse-report.json")
        try Fixtures.write(
            Fixtures.mergeReport(
                added: 5000, updated: 0, duplicates: 0, rejected: 0, needsReview: 0,
                notEnriched: 2500, matchedByIsbn: 0), to: run + "/merge-report.json")
        try Fixtures.write(ReviewList(importId: "imp-1", items: []), to: run + "/review.json")
        temp.write("run/failed-rows.csv", Self.csv(rows: 2500))
        var parameters = RenderParameters()
        parameters.reportMaximumRows = 25
        let html = try String(
            contentsOfFile: try ImportReportPage.write(
                status: try ImportRunStatus.read(runDirectory: run, files: .pipelineDefaults),
                parameters: parameters), encoding: .utf8)
        #expect(html.contains("<h2>Rejected rows (2500)</h2>"))
        #expect(html.contains("… and 2475 more in failed-rows.csv."))
        let table = html.components(separatedBy: "<table id=\"failed\">")[1].components(separatedBy: "</table>")[0]
        #expect(table.components(separatedBy: "<tr>").count - 1 == 26, "header + 25 rows")
        #expect(table.contains("Tïtle 25 — ✓") && !table.contains("Tïtle 26 — ✓"))
    }
    /// Rows past the cap are only counted: the count and the kept rows must equal an uncapped read
    /// for any bytes, whatever the cap.
    @Test(.bug(id: 12)) func countingPastTheCapAgreesWithAWholeReadOnRandomBytes() throws {
        let temp = TemporaryDirectory("render-failed-random")
        let alphabet: [String] = ["a", "b", ",", "\"", "\"", "\n", "\r", "é", " "]
        var generator = SeededGenerator(seed: 12)
        for _ in 0..<400 {
            let length = Int(generator.next() % 60)
            let text = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }.joined()
            let path = temp.write("rows.csv", text)
            let whole = try ImportReportPage.exportRows(path: path, maximumRows: .max)
            for cap in [0, 1, 2, 5] {
                let capped = try ImportReportPage.exportRows(path: path, maximumRows: cap)
                #expect(capped.dataRows == whole.dataRows, "\(text.debugDescription) cap \(cap)")
                #expect(capped.rows == Array(whole.rows.prefix(cap + 1)), "\(text.debugDescription) cap \(cap)")
            }
        }
    }
}
