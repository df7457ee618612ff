import Foundation
import ShelflineActivity
import ShelflineCore
import ShelflineReports
import TestSupport
import Testing

@testable import ShelflineRender

/// Issue 25: render's HTML escaping and the not-enriched table, made cheaper, must write the same bytes.
@Suite struct ReportPageEscapingTests {
    /// Escaping over bytes equals escaping character by character, also where a character to escape
    /// is joined to its neighbours in one grapheme cluster (a combining accent after `"`, an Arabic
    /// number sign before `&`, an emoji ZWJ sequence), which the character walk leaves as it is.
    @Test(.bug(id: 25)) func escapingBytesMatchesEscapingCharacters() {
        let pieces = [
            "a", " ", "&", "<", ">", "\"", "'", "é", "e\u{301}", "\u{301}", "\u{600}", "\u{200D}", "👩", "\r\n", "\n", "—",
            "&amp;",
        ]
        var generator = SeededGenerator(seed: 25)
        var samples = [
            "", "plain text", "Tom & Jerry <b>\"quoted\"</b> 'single'", "\"\u{301}", "\u{600}&", "&\u{200D}👩", "👩\u{200D}&",
        ]
        for _ in 0..<2000 {
            let length = Int(generator.next() % 12)
            samples.append((0..<length).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined())
        }
        for text in samples {
            #expect(ImportReportPage.escape(text) == ImportReportPage.escapeCharacters(text), "\(text.debugDescription)")
        }
        #expect(ImportReportPage.escape("Tom & \"Jerry\"") == "Tom &amp; &quot;Jerry&quot;")
        // The cluster of `"` and a combining accent is not the character `"`: left as it is.
        let accented = "\"" + "\u{301}"
        #expect(ImportReportPage.escape(accented) == accented)
    }

    /// A table cell is cut as `truncated(toCharacters:)` cuts it, without walking a whole long cell.
    @Test(.bug(id: 25)) func cellsAreCutAsTruncatedCutsThem() {
        let texts = [
            "", "short", String(repeating: "é", count: 300), String(repeating: "e\u{301}", count: 300),
            String(repeating: "x", count: 299) + "👩‍👩‍👧", String(repeating: "x", count: 301), String(repeating: "ab", count: 5000),
        ]
        for text in texts {
            for limit in [1, 2, 10, 299, 300, 301] {
                #expect(ImportReportPage.cell(text, characters: limit) == text.truncated(toCharacters: limit), "\(limit)")
            }
        }
    }

    /// With merge's count of not-enriched rows the report reads only the rows it lists, and says the
    /// count merge gave; the page is the one a full count of the file gives.
    @Test(.bug(id: 25)) func notEnrichedTableTakesMergesRowCount() throws {
        let temp = TemporaryDirectory("render-not-enriched-count")
        let run = temp.file("run")
        try Workspace.makeDirectory(run)
        let rows = 3000
        try Fixtures.write(Fixtures.parseReport(rowsRead: rows, rejected: 0), to: run + "/parse-report.json")
        var report = Fixtures.mergeReport(
            added: rows, updated: 0, duplicates: 0, rejected: 0, needsReview: 0,
            notEnriched: rows, matchedByIsbn: 0)
        report.notEnrichedRows = "not-enriched.csv"
        try Fixtures.write(ReviewList(importId: "imp-1", items: []), to: run + "/review.json")
        temp.write("run/not-enriched.csv", ReportPageStreamingTests.csv(rows: rows))
        var parameters = RenderParameters()
        parameters.reportMaximumRows = 25
        func page() throws -> String {
            try Fixtures.write(report, to: run + "/merge-report.json")
            return try String(
                contentsOfFile: try ImportReportPage.write(
                    status: try ImportRunStatus.read(runDirectory: run, files: .pipelineDefaults),
                    parameters: parameters), encoding: .utf8)
        }
        let counted = try page()
        report.notEnrichedRowCount = rows
        #expect(try page() == counted)
        #expect(counted.contains("<h2>Imported without metadata (\(rows))</h2>"))
        // The count is merge's, not the file's: the file is not read past the listed rows.
        report.notEnrichedRowCount = rows + 7
        #expect(try page().contains("<h2>Imported without metadata (\(rows + 7))</h2>"))
        let read = try ImportReportPage.exportRows(path: run + "/not-enriched.csv", maximumRows: 25, knownDataRows: rows + 7)
        #expect(read.dataRows == rows + 7)
        let whole = try ImportReportPage.exportRows(path: run + "/not-enriched.csv", maximumRows: .max)
        #expect(read.rows == Array(whole.rows.prefix(26)))
        // A file with fewer rows than listed is read whole and its own count shown.
        #expect(
            try ImportReportPage.exportRows(path: run + "/not-enriched.csv", maximumRows: 5000, knownDataRows: rows + 7)
                .dataRows == rows)
    }
}
