import Foundation
import ShelflineCore

/// Openreads' CSV export (Settings → Backup → Export as CSV).
///
/// `readings` holds `start|finish|reading time` items separated by `;`; `tags` are separated by
/// `|||||`; a `deleted` row is a book in Openreads' bin, skipped.
struct OpenreadsFormat: FixedSchemaFormat {
    var summary: String { "Openreads: the CSV export" }

    static let schema = ExportSchema(
        format: .openreads,
        signature: [["title"], ["author"], ["olid", "favourite", "deleted", "readings", "book_format", "my_review"]],
        columns: [
            .title: ["title"], .author: ["author"], .rating: ["rating"], .pages: ["pages"], .year: ["publication_year"],
            .isbn: ["isbn"], .review: ["my_review"], .notes: ["notes"], .binding: ["book_format"], .dateAdded: ["date_added"],
        ],
        own: [["status"], ["favourite"], ["deleted"], ["olid"], ["tags"], ["readings"]])

    let cannotCarry: [String: String] = [
        "subtitle": "no subtitle field in an imported row; not kept (lookup supplies subtitles)",
        "description": "the book's description, not the reader's review; not kept (lookup supplies descriptions)",
        "date_modified": "when the row last changed in Openreads; not kept",
        "readings": "each reading's reading time (its third part); the dates are kept",
    ]

    func skipReason(_ cells: OwnCells) -> String? {
        guard let deleted = cells.string(2), CellValue.owned(deleted) else { return nil }
        return "deleted in the source (in Openreads' bin): not imported"
    }

    func readOwnCells(_ cells: OwnCells, into record: inout ParsedRecord) -> String? {
        // Its statuses are `ShelfName.normalise` spellings but `unfinished`.
        if let status = cells.string(0) {
            let unfinished = ExportSchema.key(status) == "unfinished"
            record.shelf = (unfinished ? ShelfName.didNotFinish : ShelfName.normalise(status)).map(FieldText.string)
        }
        var shelves = (cells.string(4) ?? "").components(separatedBy: "|||||").map { $0.trimmingSpaces }.filter { !$0.isEmpty }
        if let favourite = cells.string(1), CellValue.owned(favourite) { shelves.append("favourites") }
        if !shelves.isEmpty { record.shelves = shelves.map(FieldText.string) }
        if let olid = cells.string(3) { record.identifiers = [IdentifierList.schemeName("openlibrary", value: olid): olid] }
        let reads = (cells.string(5) ?? "").split(separator: ";").compactMap { item -> ReadSpan? in
            let parts = item.split(separator: "|", omittingEmptySubsequences: false)
            let start = parts.first.flatMap { ExportDate.normalise($0) }
            let end = parts.count > 1 ? ExportDate.normalise(parts[1]) : nil
            return start == nil && end == nil ? nil : ReadSpan(start: start, end: end)
        }
        if !reads.isEmpty { record.reads = reads }
        return nil
    }
}
