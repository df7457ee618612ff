import ShelflineCore

/// How library values become the cells both CSV exports share.
public enum ExportCells {
    /// `2024-05-01` → `2024/05/01` (how Goodreads and StoryGraph write dates).
    static func slashDate(_ iso: String?) -> String? {
        iso.map { String($0.map { $0 == "-" ? "/" : $0 }) }
    }

    /// The title as the exports write it: the series suffix back on (`Dune (Dune Chronicles, #1)`).
    static func title(_ book: LibraryBook) -> String {
        guard let series = book.series else { return book.title }
        guard let position = book.seriesPosition else { return "\(book.title) (\(series))" }
        return "\(book.title) (\(series), #\(position))"
    }

    /// `Frank Herbert` → `Herbert, Frank`; `Martin Luther King Jr.` → `King Jr., Martin Luther`; one word stays.
    static func lastFirst(_ name: String?) -> String? {
        guard let name else { return nil }
        var words = name.split(separator: " ")
        guard words.count > 1 else { return name }
        var surname = String(words.removeLast())
        if suffixes.contains(surname.lowercased()), words.count > 1 {
            surname = "\(words.removeLast()) \(surname)"
        }
        return "\(surname), \(words.joined(separator: " "))"
    }

    private static let suffixes: Set<String> = ["jr.", "jr", "sr.", "sr", "ii", "iii", "iv"]

    /// A rating as a whole star: half up (3.5 → 4, 3.25 → 3), a rated book never below 1; 0 = unrated.
    public static func wholeStars(_ rating: Double?) -> Int {
        guard let rating, rating > 0 else { return 0 }
        return min(5, max(1, Int(rating.rounded(.toNearestOrAwayFromZero))))
    }

    /// A rating as StoryGraph writes it: `4`, `4.5`, `3.75`; empty when unrated.
    public static func stars(_ rating: Double?) -> String? {
        guard let rating, rating > 0 else { return nil }
        return rating == rating.rounded() ? String(Int(rating)) : String(rating)
    }

    /// The date the book was last finished.
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

    /// The source's own row id from the newest import in `format` that touched the book.
    static func rowId(_ book: LibraryBook, format: SourceFormat) -> String? {
        book.provenance.last { $0.format == format && $0.rowIds?.isEmpty == false }?.rowIds?.first
    }

    static func joined(_ values: [String]?) -> String? {
        guard let values, !values.isEmpty else { return nil }
        return values.joined(separator: ", ")
    }
}
