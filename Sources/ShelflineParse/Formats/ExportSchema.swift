import ShelflineCore

/// What a column means to Shelfline, whatever the export calls it.
public enum ColumnRole: String, CaseIterable, Sendable, Codable {
    case id, title, author, additionalAuthors
    /// A single identifier cell (`ISBN`, `ISBN/UID`), a preferred ISBN-13 cell, and a list cell (`ISBNs`).
    case isbn, isbn13, isbnList
    case asin, publisher
    /// LibraryThing's `Publication` (`Plume (1992), 864 pages`): the publisher is read from it.
    case publication
    case binding, pages, year, originalYear
    case rating, shelf, shelves, dateAdded, dateStarted, dateRead
    /// StoryGraph's `Last Date Read`: used when `Dates Read` is empty.
    case lastDateRead
    case readCount, review, notes, owned
}

/// How one export format names its columns, and which of them identify it.
public struct ExportSchema: Sendable {
    public var format: SourceFormat
    /// Header names (normalised: lowercase, single spaces) that must all be present for the format.
    public var signature: [[String]]
    /// For each role, the header names that may hold it, best first.
    public var columns: [ColumnRole: [String]]

    /// The header names a user should see in an error: the signature, in export spelling.
    public var expectedHeaders: String {
        signature.map { $0.joined(separator: "/") }.joined(separator: ", ")
    }

    public static let goodreads = ExportSchema(
        format: .goodreads,
        signature: [["book id"], ["title"], ["author"], ["my rating"], ["exclusive shelf"]],
        columns: [
            .id: ["book id"], .title: ["title"], .author: ["author"], .additionalAuthors: ["additional authors"],
            .isbn: ["isbn"], .isbn13: ["isbn13"], .rating: ["my rating"], .publisher: ["publisher"],
            .binding: ["binding"], .pages: ["number of pages"], .year: ["year published"],
            .originalYear: ["original publication year"], .dateRead: ["date read"], .dateAdded: ["date added"],
            .shelves: ["bookshelves"], .shelf: ["exclusive shelf"], .review: ["my review"],
            .notes: ["private notes"], .readCount: ["read count"], .owned: ["owned copies"],
        ])

    public static let storygraph = ExportSchema(
        format: .storygraph,
        signature: [["title"], ["authors"], ["isbn/uid"], ["read status"]],
        columns: [
            .title: ["title"], .author: ["authors"], .isbn: ["isbn/uid"], .binding: ["format"],
            .shelf: ["read status"], .dateAdded: ["date added"], .dateRead: ["dates read"],
            .lastDateRead: ["last date read"], .readCount: ["read count"], .rating: ["star rating"],
            .review: ["review"], .shelves: ["tags"], .owned: ["owned?"],
        ])

    public static let librarything = ExportSchema(
        format: .librarything,
        signature: [["book id", "book_id"], ["title"], ["primary author", "author (last, first)"]],
        columns: [
            .id: ["book id", "book_id"], .title: ["title"],
            .author: ["primary author", "author (last, first)", "author"],
            .additionalAuthors: ["secondary author", "other authors"], .publication: ["publication"],
            .publisher: ["publisher"], .binding: ["media"], .pages: ["page count", "pages"],
            .year: ["date", "publication date"], .rating: ["rating"], .review: ["review"],
            .notes: ["private comment", "comment", "comments"], .dateStarted: ["date started"],
            .dateRead: ["date read"], .dateAdded: ["entry date"], .shelves: ["tags"],
            .isbn: ["isbn"], .isbnList: ["isbns"], .owned: ["copies"],
        ])

    /// The built-in formats in detection order (most specific signature first).
    public static let builtIn: [ExportSchema] = [goodreads, storygraph, librarything]

    public static func schema(for format: SourceFormat) -> ExportSchema? {
        builtIn.first { $0.format == format }
    }

    /// Header cell → comparison key: trimmed, lowercase, inner whitespace runs collapsed, and
    /// wrapping single quotes (old LibraryThing CSV: `'TITLE'`) removed.
    public static func key(_ header: String) -> String {
        var text = PersonName.collapse(header).lowercased()
        if text.count >= 2 && text.hasPrefix("'") && text.hasSuffix("'") {
            text = String(text.dropFirst().dropLast())
        }
        return text
    }

    /// The column index of each role this header has, or nil when a signature header is missing.
    public func resolve(header keys: [String]) -> ColumnMap? {
        var index: [String: Int] = [:]
        for (position, key) in keys.enumerated() where index[key] == nil { index[key] = position }
        for alternatives in signature where !alternatives.contains(where: { index[$0] != nil }) {
            return nil
        }
        var map = ColumnMap(format: format, columnCount: keys.count)
        for (role, names) in columns {
            if let position = names.lazy.compactMap({ index[$0] }).first { map[role] = position }
        }
        return map
    }
}

/// For one file: which column holds each role.
public struct ColumnMap: Sendable, Equatable {
    public var format: SourceFormat
    public var columnCount: Int
    private var positions: [Int]

    public init(format: SourceFormat, columnCount: Int) {
        self.format = format
        self.columnCount = columnCount
        positions = Array(repeating: -1, count: ColumnRole.allCases.count)
    }

    public subscript(role: ColumnRole) -> Int? {
        get {
            let value = positions[Self.slot(role)]
            return value < 0 ? nil : value
        }
        set { positions[Self.slot(role)] = newValue ?? -1 }
    }

    private static let slots: [ColumnRole: Int] = Dictionary(
        uniqueKeysWithValues: ColumnRole.allCases.enumerated().map { ($1, $0) })

    @inline(__always)
    private static func slot(_ role: ColumnRole) -> Int { slots[role]! }
}
