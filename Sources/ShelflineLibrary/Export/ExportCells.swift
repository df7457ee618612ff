import ShelflineCore

/// How library values become the cells both CSV exports share.
public enum ExportCells {
    /// `2024-05-01` → `2024/05/01`.
    static func slashDate(_ iso: String?) -> String? {
        iso.map { String($0.map { $0 == "-" ? "/" : $0 }) }
    }

    static func title(_ book: LibraryBook) -> String {
        book.titleAsWritten ?? seriesTitle(book)
    }

    /// `Dune (Dune Chronicles, #1)`, as Goodreads writes most titles.
    static func seriesTitle(_ book: LibraryBook) -> String {
        guard let series = book.series else { return book.title }
        guard let position = book.seriesPosition else { return "\(book.title) (\(series))" }
        return "\(book.title) (\(series), #\(position))"
    }

    /// Goodreads' rule: `Walter M. Miller Jr.` → `Jr., Walter M. Miller`; one word twice (`Akala, Akala`).
    static func lastFirst(_ name: String?) -> String? {
        guard let name else { return nil }
        var words = name.split(separator: " ")
        guard let last = words.popLast() else { return name }
        return "\(last), \(words.isEmpty ? String(last) : words.joined(separator: " "))"
    }

    /// Half up (3.5 → 4, 3.25 → 3), a rated book never below 1; 0 = unrated.
    public static func wholeStars(_ rating: Double?) -> Int {
        guard let rating, rating > 0 else { return 0 }
        return min(5, max(1, Int(rating.rounded(.toNearestOrAwayFromZero))))
    }

    /// As StoryGraph writes it: `4`, `4.5`, `3.75`; empty when unrated.
    public static func stars(_ rating: Double?) -> String? {
        guard let rating, rating > 0 else { return nil }
        return rating == rating.rounded() ? String(Int(rating)) : String(rating)
    }

    /// The ISBNs an export gave (not lookup's: `value(_:_:of:)`); an invalid cell goes in the column its
    /// length says (`ISBN13` from 11 digits, else `ISBN`).
    static func isbns(_ book: LibraryBook) -> (isbn10: String?, isbn13: String?) {
        var isbn10 = value(book.isbn10, "isbn10", of: book), isbn13 = value(book.isbn13, "isbn13", of: book)
        if let raw = book.isbnAsWritten {
            if raw.filter({ $0.isNumber || $0 == "X" || $0 == "x" }).count >= 11 { isbn13 = raw } else { isbn10 = raw }
        }
        return (isbn10, isbn13)
    }

    /// `value` of `field` as an export writes it: a reader's export's value, or lookup's for one of
    /// `ExportFormat.filledFromMetadata` by the reader's own ISBN. Not a title search's guess: the next
    /// import would read it as the reader's word, so export → import → export would not be stable.
    static func value<T>(_ value: T?, _ field: String, of book: LibraryBook) -> T? {
        guard let value, book.metadataFields?.contains(field) == true else { return value }
        guard book.enrichment == MatchStatus.matchedByIsbn.rawValue,
            ExportFormat.filledFromMetadata.contains(where: { $0.field == field })
        else { return nil }
        return value
    }

    static func lastFinished(_ book: LibraryBook) -> String? {
        book.reads?.compactMap(\.end).max()
    }

    /// Every reading as StoryGraph writes it: `2023/05/23-2023/06/07, 2024/01/02`.
    static func datesRead(_ book: LibraryBook) -> String? {
        guard let reads = book.reads, !reads.isEmpty else { return nil }
        return reads.map { span in
            switch (slashDate(span.start), slashDate(span.end)) {
            case (let start?, let end?): "\(start)-\(end)"
            case (let start?, nil): "\(start)-"
            case (nil, let end?): end
            case (nil, nil): ""
            }
        }.joined(separator: ", ")
    }

    /// The row id of the newest import in `format` that touched the book.
    static func rowId(_ book: LibraryBook, format: SourceFormat) -> String? {
        book.provenance.last { $0.format == format && $0.rowIds?.isEmpty == false }?.rowIds?.first
    }

    static func joined(_ values: [String]?) -> String? {
        guard let values, !values.isEmpty else { return nil }
        return values.joined(separator: ", ")
    }
}
