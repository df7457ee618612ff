import ShelflineCore
import Testing

@testable import ShelflineLibrary

/// A book's other shelves: each name once, in the order first listed, its reading state left out,
/// names compared as Swift compares strings (a composed and a decomposed `é` are one shelf), for a
/// short list and a long one alike.
@Suite struct LibraryStatsTests {
    /// The rule written out plainly, to hold the function to.
    static func expected(_ list: [String], state: String?) -> [String] {
        var kept: [String] = []
        for name in list where name != state && !kept.contains(name) { kept.append(name) }
        return kept
    }

    @Test(.bug(id: 41), arguments: [4, 32, 33, 400])
    func otherShelvesListEachNameOnceInFirstOrder(count: Int) {
        let names = (0..<count).map { index -> String in
            switch index % 5 {
            case 0: "read"
            case 1: "caf\u{E9}-\(index % 7)"
            case 2: "cafe\u{301}-\(index % 7)"
            default: "shelf-\(index % 11)"
            }
        }
        var book = LibraryBook(id: "b1", title: "T")
        (book.shelf, book.shelves) = ("read", names)
        let shelves = LibraryStats.otherShelves(book)
        #expect(shelves == Self.expected(names, state: "read"))
        #expect(!shelves.contains("read"))
        #expect(Set(shelves).count == shelves.count)
    }

    @Test(.bug(id: 41)) func aBookWithoutShelvesHasNoOtherShelves() {
        var book = LibraryBook(id: "b1", title: "T")
        book.shelf = "read"
        #expect(LibraryStats.otherShelves(book).isEmpty)
        book.shelves = ["read", "read"]
        #expect(LibraryStats.otherShelves(book).isEmpty)
    }
}
