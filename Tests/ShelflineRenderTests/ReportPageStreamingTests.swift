import Foundation
import ShelflineCore
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
        let whole = CSVTable.parse(text)
        #expect(whole.count == 4001)
        for cap in [0, 1, 10, 3999, 4000, 10_000] {
            let streamed = try CSVTable.read(path: temp.file("failed-rows.csv"), maximumRows: cap)
            #expect(streamed.dataRows == 4000)
            #expect(streamed.rows == Array(whole.prefix(cap + 1)))
        }
        #expect(whole[3][1] == "Title 3, with \"quotes\"\nand a line")
        #expect(try CSVTable.read(path: temp.file("absent.csv"), maximumRows: 5).dataRows == 0)
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
        temp.write("run/review.json", "[]")
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
    /// Rows past the cap are only counted (no fields built, quoted runs skipped with memchr): the
    /// count and the kept rows must equal a whole parse for any bytes, split anywhere, whatever the cap.
    @Test(.bug(id: 12)) func countingPastTheCapAgreesWithAWholeParseOnRandomBytes() {
        let alphabet: [String] = ["a", "b", ",", "\"", "\"", "\n", "\r", "é", " "]
        var generator = SeededGenerator(seed: 12)
        for _ in 0..<400 {
            let length = Int(generator.next() % 60)
            let text = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }.joined()
            let whole = CSVTable.parse(text)
            for cap in [0, 1, 2, 5, Int.max] {
                for piece in [1, 3, 64] {
                    var stream = CSVRowStream(keepingRows: cap)
                    var kept: [[String]] = []
                    let bytes = Array(text.utf8)
                    var start = 0
                    while start < bytes.count {
                        let end = min(bytes.count, start + piece)
                        bytes[start..<end].withUnsafeBytes { stream.feed($0) { kept.append($0) } }
                        start = end
                    }
                    stream.finish { kept.append($0) }
                    #expect(stream.rowCount == whole.count, "\(text.debugDescription) cap \(cap) piece \(piece)")
                    #expect(kept == Array(whole.prefix(cap)), "\(text.debugDescription) cap \(cap) piece \(piece)")
                }
            }
        }
    }
}
