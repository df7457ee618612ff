import ShelflineCore

/// What `shelfline library stats` and the library page count, in one pass over the library.
public struct LibraryStats: Codable, Equatable, Sendable {
    public var books = 0
    /// Books per exclusive shelf (`read`, `to-read`, …; `none` for a book without one).
    public var exclusiveShelves: [String: Int] = [:]
    /// Books per other shelf (tags).
    public var shelves: [String: Int] = [:]
    /// Readings finished per year (`2024`) and per month (`2024-05`): a book read twice counts twice.
    public var finishedPerYear: [String: Int] = [:]
    public var finishedPerMonth: [String: Int] = [:]
    /// Pages of those readings, where the book's page count is known.
    public var pagesPerYear: [String: Int] = [:]
    public var pagesPerMonth: [String: Int] = [:]
    /// Rated books per whole star, `1`…`5` (`ExportCells.wholeStars`).
    public var ratings: [String: Int] = [:]
    public var booksWithPages = 0
    public var pages = 0

    public init() {}

    /// The members of a library line `add` reads.
    public static let fields: Set<String> = ["shelf", "shelves", "pages", "reads", "rating"]

    public mutating func add(_ book: LibraryBook) {
        books += 1
        exclusiveShelves[Self.readingState(book), default: 0] += 1
        for shelf in Self.otherShelves(book) { shelves[shelf, default: 0] += 1 }
        if let pages = book.pages {
            booksWithPages += 1
            self.pages += pages
        }
        for end in Self.finishes(book) {
            let year = String(end.prefix(4)), month = String(end.prefix(7))
            finishedPerYear[year, default: 0] += 1
            finishedPerMonth[month, default: 0] += 1
            if let pages = book.pages {
                pagesPerYear[year, default: 0] += pages
                pagesPerMonth[month, default: 0] += pages
            }
        }
        let stars = ExportCells.wholeStars(book.rating)
        if stars > 0 { ratings[String(stars), default: 0] += 1 }
    }

    public static func readingState(_ book: LibraryBook) -> String { book.shelf ?? "none" }

    /// Each once, the exclusive shelf aside.
    public static func otherShelves(_ book: LibraryBook) -> [String] {
        guard let list = book.shelves, !list.isEmpty else { return [] }
        // Scanning a dozen kept names beats hashing each: the set was a tenth of the library page's CPU.
        guard list.count > 32 else {
            var kept: [String] = []
            for shelf in list where shelf != book.shelf && !kept.contains(shelf) { kept.append(shelf) }
            return kept
        }
        var seen: Set<String> = []
        return list.filter { $0 != book.shelf && seen.insert($0).inserted }
    }

    public static func finishes(_ book: LibraryBook) -> [String] {
        (book.reads ?? []).compactMap(\.end).filter { $0.count >= 7 }
    }

    public static func read(path: String) throws -> LibraryStats {
        var stats = LibraryStats()
        try LibraryBooks.forEach(path: path) { book, _ in stats.add(book) }
        return stats
    }
}
