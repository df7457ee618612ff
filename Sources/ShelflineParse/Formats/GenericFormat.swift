import ShelflineCore

/// Any spreadsheet: header names that say what they hold (the names BookWyrm's generic import
/// guesses too), or the columns mapped by `--columns` / the parse parameters.
struct GenericFormat: ImportFormat {
    var name: SourceFormat { .generic }
    var summary: String { "any spreadsheet: header names that say what they hold, or columns mapped with --columns" }
    var acceptsShortRows: Bool { true }
    var reportsUnreadColumns: Bool { true }

    func schema(_ parameters: ParseParameters) -> ExportSchema { parameters.generic?.schema ?? Self.guessed }

    func listSeparator(_ parameters: ParseParameters) -> Character { parameters.generic?.listSeparator.first ?? "," }

    /// The header names each field is guessed from, besides the field's own name.
    static let guesses: [ColumnRole: [String]] = [
        .id: ["id", "book id"], .title: ["title", "book title"], .author: ["author", "authors", "primary author"],
        .additionalAuthors: ["additional authors", "other authors"],
        .isbn: ["isbn", "isbn10", "isbn 10", "isbn_10", "isbn-10"], .isbn13: ["isbn13", "isbn 13", "isbn_13", "isbn-13"],
        .asin: ["asin"], .publisher: ["publisher"], .binding: ["binding", "format"],
        .pages: ["pages", "number of pages", "page count"], .year: ["year", "year published", "publication year"],
        .rating: ["rating", "my rating", "star rating", "stars"],
        .shelf: ["shelf", "exclusive shelf", "read status", "bookshelf", "status"],
        .shelves: ["shelves", "tags", "bookshelves"], .dateAdded: ["added", "date added", "entry date"],
        .dateStarted: ["started", "date started", "start date"],
        .dateRead: ["finished", "date finished", "date read", "last date read", "finish date"],
        .review: ["review", "my review"], .notes: ["notes", "private notes"], .owned: ["owned", "owned?"],
    ]

    /// Needs a title and an author or an ISBN at least.
    static let guessed: ExportSchema = {
        var columns: [ColumnRole: [String]] = [:]
        for role in GenericMapping.roles { columns[role] = (guesses[role] ?? []) + [ExportSchema.key(role.rawValue)] }
        let authorOrISBN = (columns[.author] ?? []) + (columns[.isbn13] ?? []) + (columns[.isbn] ?? [])
        return ExportSchema(format: .generic, signature: [columns[.title] ?? ["title"], authorOrISBN], columns: columns)
    }()
}
