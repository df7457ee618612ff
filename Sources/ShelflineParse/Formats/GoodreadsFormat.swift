import Foundation
import ShelflineCore

/// Goodreads' "Export Library" CSV: the current 24-column and the older 31-column export.
struct GoodreadsFormat: FixedSchemaFormat {
    var summary: String { "Goodreads: the \"Export Library\" CSV (24-column current or 31-column older export)" }

    static let schema = ExportSchema(
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

    static let columns24 = [
        "Book Id", "Title", "Author", "Author l-f", "Additional Authors", "ISBN", "ISBN13", "My Rating",
        "Average Rating", "Publisher", "Binding", "Number of Pages", "Year Published", "Original Publication Year",
        "Date Read", "Date Added", "Bookshelves", "Bookshelves with positions", "Exclusive Shelf", "My Review",
        "Spoiler", "Private Notes", "Read Count", "Owned Copies",
    ]
    /// The older export adds recommendation, purchase and condition columns.
    static let columns31 =
        Array(columns24.prefix(23)) + [
            "Recommended For", "Recommended By", "Owned Copies", "Original Purchase Date", "Original Purchase Location",
            "Condition", "Condition Description", "BCID",
        ]

    var headerlessColumns: [[String]] { [Self.columns24, Self.columns31] }

    func looksLikeDataRow(_ cells: [String]) -> Bool {
        guard cells.count == 24 || cells.count == 31 else { return false }
        let id = cells[0], rating = cells[7]
        return !id.isEmpty && id.allSatisfy({ $0.isASCII && $0.isNumber }) && DataRowCell.filled(cells[1])
            && DataRowCell.filled(cells[2]) && DataRowCell.isbnLike(cells[5]) && DataRowCell.isbnLike(cells[6])
            && (rating.isEmpty || ["0", "1", "2", "3", "4", "5"].contains(rating))
    }
}

/// Tests on the cells of a row that may be data, for files whose header row was lost.
enum DataRowCell {
    /// Digits, `X` and hyphens only, or empty; Goodreads' `="…"` wrapping allowed.
    static func isbnLike(_ cell: String) -> Bool {
        var text = Substring(cell)
        if text.hasPrefix("=\"") && text.hasSuffix("\"") { text = text.dropFirst(2).dropLast() }
        return text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == "X" || $0 == "x" || $0 == "-") }
    }

    static func filled(_ cell: String) -> Bool { !cell.trimmingCharacters(in: .whitespaces).isEmpty }
}
