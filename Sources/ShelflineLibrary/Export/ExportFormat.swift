import ShelflineCore

/// The files `shelfline export` writes, and what each cannot carry of what the library holds.
public enum ExportFormat: String, CaseIterable, Sendable {
    /// Goodreads' current "Export Library" CSV (24 columns): what every reading service imports.
    case goodreads
    /// StoryGraph's export CSV (23 columns).
    case storygraph
    /// The library itself, one book (a JSON object) a line: `docs/library-book.schema.json`.
    case ndjson

    /// The cells an export fills from lookup's metadata when the reader's export left them empty
    /// (library field, Goodreads column): only from the edition the reader's own ISBN named (a
    /// match by ISBN), and never an identifier, title or author, so that export → import → export
    /// gives the same file (`ExportCells.value`). StoryGraph has none of these columns.
    public static let filledFromMetadata: [(field: String, column: String)] = [
        ("publisher", "Publisher"), ("pages", "Number of Pages"), ("year", "Year Published"),
    ]

    /// Where a format keeps less than the library, in words (for `--help` and the docs).
    public var limits: String {
        switch self {
        case .goodreads:
            "one read (the last `Date Read`; `Read Count` says how many) and no start dates; whole-star `My Rating` "
                + "(a fraction rounded half up: 3.5 → 4, 3.25 → 3; a rated book never below 1); no StoryGraph "
                + "columns (moods, pace, characters, content warnings, contributors), an ASIN only in place of an ISBN-10, no older-export "
                + "columns (purchase, condition, recommendations); `Average Rating` left empty (it is Goodreads', "
                + "not yours); `Book Id` only for books a Goodreads export brought; cells as the reader's export "
                + "wrote them (title, ISBNs valid or not), lookup filling only an empty "
                + Self.filledFromMetadata.map { "`\($0.column)`" }.joined(separator: ", ")
                + " from the edition of a match by the reader's ISBN"
        case .storygraph:
            "no publisher, pages, publication years, private notes, spoiler flag, shelf positions or copy count "
                + "(`Owned?` is Yes/No); ratings kept to the quarter star as StoryGraph does"
        case .ndjson:
            "nothing: every field of every book, with enrichment keys, cover id, provenance and review decisions"
        }
    }
}
