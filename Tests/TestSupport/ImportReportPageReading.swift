import Foundation

/// What an import's `report.html` says, read from its HTML by the test (not by the page's own
/// code): the file it is titled with, the summary's counts and each chart's bars. Tests compare
/// these with what they know independently (the user's file name, the run's merge report, the
/// counts they wrote), so a page that only exists, or shows other numbers, fails (issue 42).
public struct ImportReportPageReading {
    /// The `<h1>` after "Import report: ", HTML entities as written.
    public let title: String?
    /// "N rows read" in the summary paragraph.
    public let rowsRead: Int?
    /// "the library now holds N books" in the summary paragraph.
    public let libraryBooks: Int?
    /// Each bar's label and count, from the chart's `aria-label`, keyed by the chart's `id`
    /// (`outcomes`, `enrichment`).
    public let charts: [String: [String: Int]]

    public init(path: String) throws {
        self.init(html: try String(contentsOfFile: path, encoding: .utf8))
    }

    public init(html: String) {
        func firstMatch(_ pattern: String) -> String? {
            guard let expression = try? NSRegularExpression(pattern: pattern),
                let match = expression.firstMatch(in: html, range: NSRange(html.startIndex..., in: html)),
                let range = Range(match.range(at: 1), in: html)
            else { return nil }
            return String(html[range])
        }
        title = firstMatch("<h1>Import report: ([^<]*)</h1>")
        rowsRead = firstMatch(#"<p class="summary">[^\n]*?: (\d+) rows read;"#).flatMap { Int($0) }
        libraryBooks = firstMatch(#"<p class="summary">[^\n]*the library now holds (\d+) books"#).flatMap { Int($0) }
        var charts: [String: [String: Int]] = [:]
        for id in ["outcomes", "enrichment"] {
            guard let label = firstMatch(#"<svg id=""# + id + #""[^>]*aria-label="([^"]*)""#) else { continue }
            var bars: [String: Int] = [:]
            for bar in label.components(separatedBy: ", ") {
                let parts = bar.components(separatedBy: ": ")
                if parts.count == 2, let count = Int(parts[1]) { bars[parts[0]] = count }
            }
            charts[id] = bars
        }
        self.charts = charts
    }

    /// The outcomes chart's bars as the merge report names them: added, updated, duplicateInFile, rejected.
    public var outcomes: [String: Int]? {
        charts["outcomes"].map { bars in
            Dictionary(
                uniqueKeysWithValues: [
                    ("added", "Added"), ("updated", "Updated"), ("duplicateInFile", "Duplicate in file"),
                    ("rejected", "Rejected"),
                ].compactMap { key, label in bars[label].map { (key, $0) } })
        }
    }
}
