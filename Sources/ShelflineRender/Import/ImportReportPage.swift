import Foundation
import ShelflineCore
import ShelflineLibrary
import ShelflineParse
import ShelflineReports

#if canImport(Glibc)
    import Glibc
#endif

/// `<run dir>/report.html`: one self-contained page (no scripts, nothing fetched) whose bytes
/// depend only on the run directory's files.
public enum ImportReportPage {

    /// Writes the page for a finished run; returns its path. `libraryPage` is relative to the run
    /// directory; `fileName` titles the page (default: the run's copy's name). Each table is the
    /// CSV's header and its first rows; its count is how many data rows its file holds in all.
    @discardableResult
    public static func write(
        status: ImportRunStatus, parameters: RenderParameters = RenderParameters(),
        fileName: String? = nil, libraryPage: String? = nil
    ) throws -> String {
        /// As merge's report names it, else as the run's files do.
        func resolve(_ name: String?, _ role: StageFileRole, of stage: Stage = .merge) -> String {
            let name = name?.isEmpty == false ? name! : status.files.output(stage.name, role) ?? stage.defaultOutput(role)
            return name.hasPrefix("/") ? name : status.runDirectory + "/" + name
        }
        let maximumRows = parameters.reportMaximumRows
        let reviewPath = resolve(status.merge?.review, .review)
        let reviewList =
            FileManager.default.fileExists(atPath: reviewPath) ? try readJSONFile(ReviewList.self, from: reviewPath) : nil
        // Capped: the files can hold a whole import.
        let failed = try exportRows(
            path: resolve(status.merge?.failedRows, .failedRows), maximumRows: maximumRows)
        let notEnriched = try exportRows(
            path: resolve(status.merge?.notEnrichedRows, .notEnrichedRows), maximumRows: maximumRows,
            knownDataRows: status.merge?.notEnrichedRowCount)
        let review = reviewList?.items ?? [], ruledOut = reviewList?.ruledOut ?? []
        let state = ImportActivityRenderer.contentState(for: status)
        let fileName = fileName ?? status.parse.map { ($0.input as NSString).lastPathComponent } ?? "import"
        var html = """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Import report: \(escape(fileName))</title>
            <style>
            body { font: 15px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 60em;
                   padding: 0 1em; color: #1d1d1f; background: #fff; }
            h1 { font-size: 1.6em; margin-bottom: .2em; }
            h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: .2em; }
            .summary { color: #555; }
            table { border-collapse: collapse; width: 100%; margin-top: .5em; }
            th, td { border: 1px solid #ddd; padding: .3em .5em; text-align: left; vertical-align: top; }
            th { background: #f3f3f5; }
            td.num { text-align: right; font-variant-numeric: tabular-nums; }
            ol.candidates { margin: 0; padding-left: 1.3em; }
            .muted { color: #777; }
            .why { color: #8a5a00; }
            .scroll { overflow-x: auto; }
            svg text { font: 13px -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; fill: #1d1d1f; }
            </style>
            </head>
            <body>
            <h1>Import report: \(escape(fileName))</h1>

            """
        if let merge = status.merge {
            html +=
                "<p class=\"summary\">Import <code>\(escape(merge.importId))</code>: \(merge.rowsRead) rows read; "
                + "the library now holds \(merge.libraryBooks) books"
                + (libraryPage.map { " (<a id=\"library-link\" href=\"\(escape($0))\">see the library</a>)" } ?? "") + ".</p>\n"
            html += "<h2>Where every row went</h2>\n"
            html += chart(
                id: "outcomes",
                bars: [
                    ("Added", merge.outcomes.added, "#34a853"), ("Updated", merge.outcomes.updated, "#4285f4"),
                    ("Duplicate in file", merge.outcomes.duplicateInFile, "#9aa0a6"),
                    ("Rejected", merge.outcomes.rejected, "#ea4335"),
                ] + (merge.outcomes.skipped.map { [("Skipped", $0, "#bdc1c6")] } ?? []))
            html += "<h2>Metadata</h2>\n"
            // Rows settled by a decision no longer need review (`MergeReport.rowsToReview`).
            var bars: [(label: String, count: Int, color: String)] = [
                ("Matched by ISBN", merge.enrichment.matchedByIsbn, "#34a853"),
                ("Matched by search", merge.enrichment.matchedBySearch, "#7cb342"),
            ]
            if merge.rowsReviewed > 0 { bars.append(("Reviewed", merge.rowsReviewed, "#00897b")) }
            bars += [("Needs review", merge.rowsToReview, "#fbbc04"), ("Not enriched", merge.enrichment.notEnriched, "#ea4335")]
            html += chart(id: "enrichment", bars: bars)
            if let matches = merge.enrichment.matchesBySource {
                html += sourcesTable(matches, enrichment: merge.enrichment)
            }
        } else {
            html +=
                "<p class=\"summary\">\(escape(state.currentStep)) \(state.booksProcessed) of \(state.totalBooks) rows so far.</p>\n"
        }

        html += "<h2>Needs review (\(review.count))</h2>\n"
        if review.isEmpty {
            html += "<p class=\"muted\">No rows need review.</p>\n"
        } else {
            html +=
                "<p class=\"muted\">Imported from the export's own data. Decide with "
                + "<code>shelfline review accept ROW CANDIDATE</code> or <code>shelfline review reject ROW</code>.</p>\n"
            html += reviewTable(id: "review", review, verdict: "not accepted", maximumRows: maximumRows, rest: "review.json")
        }

        let failedFile = Stage.merge.defaultOutput(.failedRows)
        let notEnrichedFile = Stage.merge.defaultOutput(.notEnrichedRows)
        html += rowsSection(
            id: "failed", heading: "Rejected rows", table: failed.rows, total: failed.dataRows, file: failedFile,
            maximumRows: maximumRows,
            empty: "No rejected rows.",
            explanation: "Not in the library: these rows could not be read. Fix them in <code>\(failedFile)</code> "
                + "(the export's original cells) and import that file again.")
        html += rowsSection(
            id: "not-enriched", heading: "Imported without metadata", table: notEnriched.rows, total: notEnriched.dataRows,
            file: notEnrichedFile, maximumRows: maximumRows, empty: "Every imported book has metadata.",
            explanation: "In the library, from the export's own data; no source knew these books. "
                + "They are listed in <code>\(notEnrichedFile)</code>.")
        if !ruledOut.isEmpty {
            html += "<h2>Imported without metadata: every candidate was another book (\(ruledOut.count))</h2>\n"
            html +=
                "<p class=\"muted\">Nothing to decide: the title rule ruled out each candidate for the reason shown "
                + "(another volume or subtitle, an author sharing no name). Listed so nothing is hidden.</p>\n"
            html += reviewTable(
                id: "ruled-out", ruledOut, verdict: "ruled out", maximumRows: maximumRows,
                rest: "review.json (<code>ruledOut</code>)")
        }
        html += "</body>\n</html>\n"
        let target = resolve(nil, .page, of: .render)
        try AtomicFile.write(html, to: target)
        return target
    }

    /// The header and first `maximumRows` rows of merge's CSV at `path`, and how many data rows it
    /// holds. `knownDataRows`: that count as merge reported it; reading then stops early.
    static func exportRows(path: String, maximumRows: Int, knownDataRows: Int? = nil) throws -> (rows: [[String]], dataRows: Int)
    {
        guard FileManager.default.fileExists(atPath: path) else { return ([], 0) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError.missingInput(path: path, reason: "not readable") }
        defer { close(fd) }
        let reader = DelimitedReader(source: .descriptor(fd, path: path))
        var row = DelimitedRow()
        var rows: [[String]] = []
        var count = 0
        while try reader.next(into: &row) {
            if count <= maximumRows {
                rows.append((0..<row.count).map { String(decoding: row.bytes($0), as: UTF8.self) })
            } else if let knownDataRows {
                return (rows, knownDataRows)
            }
            count += 1
        }
        return (rows, max(0, count - 1))
    }

    static func sourcesTable(_ matches: [String: Int], enrichment: EnrichmentCounts) -> String {
        var html = "<div class=\"scroll\"><table id=\"sources\">\n<tr><th>Source</th><th>Matched by ISBN</th>"
        html += "<th>Matched by search</th></tr>\n"
        for (source, _) in matches.sorted(by: { ($0.value, $1.key) > ($1.value, $0.key) }) {
            html +=
                "<tr><td>\(escape(source))</td><td class=\"num\">\(enrichment.isbnBySource?[source] ?? 0)</td>"
                + "<td class=\"num\">\(enrichment.searchBySource?[source] ?? 0)</td></tr>\n"
        }
        return html + "</table></div>\n"
    }

    static func rowsSection(
        id: String, heading: String, table: [[String]], total: Int? = nil, file: String, maximumRows: Int,
        empty: String, explanation: String
    ) -> String {
        let header = table.first ?? []
        let rows = Array(table.dropFirst())
        let count = max(total ?? rows.count, rows.count)
        var html = "<h2>\(escape(heading)) (\(count))</h2>\n"
        if rows.isEmpty { return html + "<p class=\"muted\">\(escape(empty))</p>\n" }
        html += "<p class=\"muted\">\(explanation)</p>\n"
        html += "<div class=\"scroll\"><table id=\"\(id)\">\n<tr>" + header.map { "<th>\(escape($0))</th>" }.joined() + "</tr>\n"
        for row in rows.prefix(maximumRows) {
            html += "<tr>" + row.map { "<td>\(escape(cell($0, characters: 300)))</td>" }.joined() + "</tr>\n"
        }
        html += "</table></div>\n"
        if count > maximumRows {
            html += "<p class=\"muted\">… and \(count - maximumRows) more in \(escape(file)).</p>\n"
        }
        return html
    }

    /// `text.truncated(toCharacters:)` without a grapheme walk over a whole long review.
    static func cell(_ text: String, characters limit: Int) -> String {
        guard limit > 1 else { return text.truncated(toCharacters: limit) }
        // More than `limit` characters: at least two after the first `limit - 1`.
        guard text.utf8.count > limit, let kept = text.index(text.startIndex, offsetBy: limit - 1, limitedBy: text.endIndex),
            kept != text.endIndex, text.index(after: kept) != text.endIndex
        else { return text }
        return String(text[..<kept]) + "…"
    }

    /// `rest` (HTML) names where the entries past `maximumRows` are.
    static func reviewTable(id: String, _ entries: [ReviewItem], verdict: String, maximumRows: Int, rest: String) -> String {
        var html =
            "<div class=\"scroll\"><table id=\"\(id)\">\n<tr><th>Line</th><th>Title</th><th>Author</th><th>Candidates</th></tr>\n"
        for entry in entries.prefix(maximumRows) {
            html +=
                "<tr><td class=\"num\">\(entry.line)</td><td>\(escape(entry.title))</td>"
                + "<td>\(escape(entry.author ?? ""))</td><td>" + candidateList(entry.candidates, verdict: verdict)
                + "</td></tr>\n"
        }
        html += "</table></div>\n"
        guard entries.count > maximumRows else { return html }
        return html + "<p class=\"muted\">… and \(entries.count - maximumRows) more in \(rest).</p>\n"
    }

    /// Each candidate with why it was `verdict` (not accepted, ruled out).
    static func candidateList(_ candidates: [MatchCandidate], verdict: String) -> String {
        guard !candidates.isEmpty else { return "<span class=\"muted\">none</span>" }
        var html = "<ol class=\"candidates\">"
        for candidate in candidates {
            let score = String(format: " (score %.2f)", candidate.score)
            html +=
                "<li>\(escape(candidate.title))"
                + (candidate.authors.isEmpty ? "" : " — \(escape(candidate.authors.joined(separator: ", ")))")
                + " <code>\(escape(candidate.key))</code>\(escape(score))"
                + (candidate.reason.flatMap { $0.isEmpty ? nil : $0 }.map {
                    " <span class=\"why\">\(verdict): \(escape(Self.readable($0)))</span>"
                } ?? "")
                + "</li>"
        }
        return html + "</ol>"
    }

    static func readable(_ reason: String) -> String {
        reason == "isbnTitleConflict" ? "the ISBN's edition has another title and author (isbnTitleConflict)" : reason
    }

    static func chart(id: String, bars: [(label: String, count: Int, color: String)]) -> String {
        let labelWidth = 150, barArea = 420, rowHeight = 30, width = labelWidth + barArea + 70
        let largest = max(1, bars.map(\.count).max() ?? 1)
        var svg =
            "<svg id=\"\(id)\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(bars.count * rowHeight + 10)\" "
            + "role=\"img\" aria-label=\"\(escape(bars.map { "\($0.label): \($0.count)" }.joined(separator: ", ")))\">\n"
        for (index, bar) in bars.enumerated() {
            let y = index * rowHeight + 5
            let length = bar.count == 0 ? 0 : max(2, bar.count * barArea / largest)
            svg +=
                "<text x=\"0\" y=\"\(y + 18)\">\(escape(bar.label))</text>"
                + "<rect x=\"\(labelWidth)\" y=\"\(y + 3)\" width=\"\(length)\" height=\"20\" rx=\"3\" fill=\"\(bar.color)\"/>"
                + "<text x=\"\(labelWidth + length + 6)\" y=\"\(y + 18)\">\(bar.count)</text>\n"
        }
        return svg + "</svg>\n"
    }

    static func escape(_ text: String) -> String {
        var copy = text
        if let escaped = copy.withUTF8({ escapeBytes($0) }) { return escaped ?? text }
        return escapeCharacters(text)
    }

    /// `escape` on bytes (character by character measured much slower): nil inside when nothing
    /// needs escaping; nil outside when a non-ASCII byte beside a character to escape may join it
    /// to a grapheme cluster (`"` and a combining accent is one `Character`, left as it is).
    static func escapeBytes(_ utf8: UnsafeBufferPointer<UInt8>) -> String?? {
        var result: [UInt8] = []
        var runStart = 0
        for index in utf8.indices {
            guard let replaced = replacement(utf8[index]) else { continue }
            if index > 0 && utf8[index - 1] >= 0x80 || index + 1 < utf8.count && utf8[index + 1] >= 0x80 { return nil }
            if result.isEmpty { result.reserveCapacity(utf8.count + 64) }
            result.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            result.append(contentsOf: UnsafeBufferPointer(start: replaced.utf8Start, count: replaced.utf8CodeUnitCount))
            runStart = index + 1
        }
        if runStart == 0 { return .some(nil) }
        result.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        return .some(String(decoding: result, as: UTF8.self))
    }

    /// Character by character: the reference `escapeBytes` must match.
    static func escapeCharacters(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for character in text {
            if let byte = character.asciiValue, let replaced = replacement(byte) {
                result += replaced.description
            } else {
                result.append(character)
            }
        }
        return result
    }

    /// The entity of a byte `escape` replaces; nil for every other byte.
    static func replacement(_ byte: UInt8) -> StaticString? {
        switch byte {
        case UInt8(ascii: "&"): "&amp;"
        case UInt8(ascii: "<"): "&lt;"
        case UInt8(ascii: ">"): "&gt;"
        case UInt8(ascii: "\""): "&quot;"
        case UInt8(ascii: "'"): "&#39;"
        default: nil
        }
    }
}
