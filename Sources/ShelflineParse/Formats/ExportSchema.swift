import Foundation
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
    /// Goodreads' own reader columns: `Bookshelves with positions`, `Spoiler`, and the older
    /// export's recommendation, purchase and condition columns (also LibraryThing's `BCID`).
    case shelfPositions, spoiler, recommendedFor, recommendedBy, purchaseDate, purchaseLocation, condition
    case conditionDescription, bcid
    /// StoryGraph's own columns.
    case contributors, moods, pace, characterOrPlotDriven, strongCharacterDevelopment, loveableCharacters
    case diverseCharacters, flawedCharacters, contentWarnings, contentWarningDescription
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
            .shelfPositions: ["bookshelves with positions"], .spoiler: ["spoiler"],
            .recommendedFor: ["recommended for"], .recommendedBy: ["recommended by"],
            .purchaseDate: ["original purchase date"], .purchaseLocation: ["original purchase location"],
            .condition: ["condition"], .conditionDescription: ["condition description"], .bcid: ["bcid"],
        ])

    public static let storygraph = ExportSchema(
        format: .storygraph,
        signature: [["title"], ["authors"], ["isbn/uid"], ["read status"]],
        columns: [
            .title: ["title"], .author: ["authors"], .isbn: ["isbn/uid"], .binding: ["format"],
            .shelf: ["read status"], .dateAdded: ["date added"], .dateRead: ["dates read"],
            .lastDateRead: ["last date read"], .readCount: ["read count"], .rating: ["star rating"],
            .review: ["review"], .shelves: ["tags"], .owned: ["owned?"],
            .contributors: ["contributors"], .moods: ["moods"], .pace: ["pace"],
            .characterOrPlotDriven: ["character- or plot-driven?"],
            .strongCharacterDevelopment: ["strong character development?"],
            .loveableCharacters: ["loveable characters?"], .diverseCharacters: ["diverse characters?"],
            .flawedCharacters: ["flawed characters?"], .contentWarnings: ["content warnings"],
            .contentWarningDescription: ["content warning description"],
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
            .isbn: ["isbn"], .isbnList: ["isbns"], .owned: ["copies"], .bcid: ["bcid"],
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

/// The column orders of the known exports, for files whose header row was lost (a spreadsheet
/// re-save): `--no-header --format goodreads|storygraph`.
public enum HeaderlessExport {
    /// Goodreads' current "Export Library" (24 columns).
    public static let goodreads24 = [
        "Book Id", "Title", "Author", "Author l-f", "Additional Authors", "ISBN", "ISBN13", "My Rating",
        "Average Rating", "Publisher", "Binding", "Number of Pages", "Year Published", "Original Publication Year",
        "Date Read", "Date Added", "Bookshelves", "Bookshelves with positions", "Exclusive Shelf", "My Review",
        "Spoiler", "Private Notes", "Read Count", "Owned Copies",
    ]
    /// Goodreads' older export (31 columns: recommendations, purchase and condition columns too).
    public static let goodreads31 =
        Array(goodreads24.prefix(23)) + [
            "Recommended For", "Recommended By", "Owned Copies", "Original Purchase Date", "Original Purchase Location",
            "Condition", "Condition Description", "BCID",
        ]
    /// StoryGraph's export (23 columns).
    public static let storygraph = [
        "Title", "Authors", "Contributors", "ISBN/UID", "Format", "Read Status", "Date Added", "Last Date Read",
        "Dates Read", "Read Count", "Moods", "Pace", "Character- or Plot-Driven?", "Strong Character Development?",
        "Loveable Characters?", "Diverse Characters?", "Flawed Characters?", "Star Rating", "Review",
        "Content Warnings", "Content Warning Description", "Tags", "Owned?",
    ]

    /// The formats that have a fixed column order.
    public static let formats: [SourceFormat] = [.goodreads, .storygraph]

    /// The header of `format` for a file whose rows have `fieldCount` fields (Goodreads: 24 or 31),
    /// or nil when that format has no export of that width.
    public static func header(for format: SourceFormat, fieldCount: Int) -> [String]? {
        switch format {
        case .goodreads: [goodreads24, goodreads31].first { $0.count == fieldCount }
        case .storygraph: storygraph.count == fieldCount ? storygraph : nil
        default: nil
        }
    }

    /// The known export whose data row `cells` looks like (right field count, numeric Book Id,
    /// a title and author, ISBN-like or empty identifier cells, a rating or read status), else nil.
    public static func format(ofDataRow cells: [String]) -> SourceFormat? {
        func isbnLike(_ cell: String) -> Bool {
            var text = Substring(cell)
            if text.hasPrefix("=\"") && text.hasSuffix("\"") { text = text.dropFirst(2).dropLast() }
            return text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "X" || $0 == "x" || $0 == "-") }
        }
        func filled(_ cell: String) -> Bool { !cell.trimmingCharacters(in: .whitespaces).isEmpty }
        if cells.count == 24 || cells.count == 31 {
            let id = cells[0], rating = cells[7]
            if !id.isEmpty && id.allSatisfy({ $0.isASCII && $0.isNumber }) && filled(cells[1]) && filled(cells[2])
                && isbnLike(cells[5]) && isbnLike(cells[6])
                && (rating.isEmpty || ["0", "1", "2", "3", "4", "5"].contains(rating))
            {
                return .goodreads
            }
        }
        if cells.count == storygraph.count {
            let status = ExportSchema.key(cells[5])
            let statuses = ["read", "to-read", "currently-reading", "did-not-finish", "paused"]
            if filled(cells[0]) && filled(cells[1]) && isbnLike(cells[3]) && statuses.contains(status) {
                return .storygraph
            }
        }
        return nil
    }
}
