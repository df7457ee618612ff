import ShelflineCore

/// The text of one record field: a trimmed cell as it is in the row, or a normalised string.
///
/// Not `String` everywhere: a `String` per pass-through cell is a heap allocation and a second
/// UTF-8 pass only to be copied into the JSON line (measured: docs/parse.md, Performance).
enum FieldText: Equatable {
    /// `cells[range]`: valid UTF-8 (cells were repaired before any range was taken).
    case cell(Range<Int>)
    case string(String)
}

extension ParsedRecord {
    /// `identifiers` best first; the first `cellIdentifiers` are ISBN cells, the rest list items.
    mutating func setISBNs(_ identifiers: [IdentifierCell], cellIdentifiers: Int? = nil) {
        let resolved = ISBN.resolve(identifiers)
        isbn13 = resolved.isbn13
        isbn10 = resolved.isbn10
        // An ISBN cell the record's ISBNs do not show is kept as written, so exports give it back:
        // a failing check digit even beside a valid cell, or another edition's ISBN-10 beside the
        // ISBN-13. A list's odd item only when nothing else was valid.
        isbnRaw = resolved.raw
        for cell in identifiers.prefix(cellIdentifiers ?? identifiers.count) {
            if case .invalid(let raw) = cell {
                isbnRaw = raw
                break
            }
            if case .isbn10(let value) = cell, value != resolved.isbn10, ISBN.thirteen(from: value) != resolved.isbn13 {
                isbnRaw = value
                break
            }
        }
        asin = resolved.asin
    }
}
