import ShelflineCore

/// The text of one record field: a trimmed cell written as it is in the row, or a normalised string.
///
/// Why not `String` everywhere: a `String` per pass-through cell (title, review, notes,
/// publisher…) is a heap allocation for every cell over 15 bytes plus a second UTF-8 pass, only to
/// be copied into the JSON line. Cells that are copied unchanged stay byte ranges into
/// `ParsedRecord.cells` and are escaped straight into the line; only values a rule rewrites become
/// strings. (Measured with the other byte-level changes in docs/parse.md, Performance.)
enum FieldText: Equatable {
    /// `cells[range]`: valid UTF-8 (invalid cells were repaired before any range was taken).
    case cell(Range<Int>)
    case string(String)
}

extension ParsedRecord {
    /// Sets the ISBNs (and ASIN) from the identifier cells of a row, best first; the first
    /// `cellIdentifiers` are its ISBN cells, the rest list items.
    mutating func setISBNs(_ identifiers: [IdentifierCell], cellIdentifiers: Int? = nil) {
        let resolved = ISBN.resolve(identifiers)
        isbn13 = resolved.isbn13
        isbn10 = resolved.isbn10
        // An ISBN or ISBN-13 cell the record's ISBNs do not show is kept as written, so exports
        // give it back: a check digit that fails, even beside a valid cell (Goodreads writes
        // `="0385535151"` beside `="9780385535151"`), or another edition's ISBN-10 beside the
        // ISBN-13. Never an identifier. A list's odd item only when nothing else was valid.
        isbnRaw = resolved.raw
        for cell in identifiers.prefix(cellIdentifiers ?? identifiers.count) {
            if case .invalid(let raw) = cell {
                isbnRaw = raw
                break
            }
            // The record's ISBN-10 is the first cell's that gives its ISBN-13 (`ISBN.resolve`).
            if case .isbn10(let value) = cell, value != resolved.isbn10, ISBN.thirteen(from: value) != resolved.isbn13 {
                isbnRaw = value
                break
            }
        }
        asin = resolved.asin
    }
}
