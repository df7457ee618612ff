import Foundation
import ShelflineCore
import ShelflineLibrary
import TestSupport
import Testing

@testable import ShelflineRender

/// The library page's data as the page writes it from bytes: each book's other shelves (each once,
/// its reading state aside) across many books, the first order for any date text, and a library of
/// many decoding batches read whole and in order (or not at all when a line is corrupt).
@Suite struct LibraryPageDataTests {
    /// A book's JSON array as `appendData` writes it, with the names it met so far.
    static func data(_ book: LibraryBook, names: inout LibraryPage.ShelfNames) throws -> [Any] {
        var bytes: [UInt8] = []
        LibraryPage.appendData(book, names: &names, to: &bytes)
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [Any])
    }

    @Test(.bug(id: 41)) func shelvesColumnListsEachOtherShelfOnceInEveryBook() throws {
        let shelves: [(shelf: String?, shelves: [String]?)] = [
            ("read", ["a", "b", "a", "read", "c", "b"]), (nil, ["a", "a", "c"]), ("read", ["read"]), ("x", nil),
            ("x", ["c", "x", "d", "c", "a"]), ("to-read", []), (nil, ["b", "b", "b", "d"]),
        ]
        var names = LibraryPage.ShelfNames()
        for (index, shelf) in shelves.enumerated() {
            var book = LibraryBook(id: "b\(index)", title: "T\(index)")
            (book.shelf, book.shelves) = shelf
            let row = try Self.data(book, names: &names)
            let listed = try #require(row[LibraryPage.Column.shelves.rawValue] as? [Int]).map { names.names[$0] }
            #expect(listed == LibraryStats.otherShelves(book), "book \(index): \(shelf)")
            #expect(names.names[try #require(row[LibraryPage.Column.state.rawValue] as? Int)] == (shelf.shelf ?? "none"))
        }
        // Names are numbered in the order first met: the reading state before the book's other shelves.
        #expect(names.names == ["read", "a", "b", "c", "none", "x", "d", "to-read"])
    }

    /// Newest first by the text's bytes, ties in file order, whatever the text: dates, times past 16
    /// bytes, a prefix of another, non-ASCII, a NUL, nothing.
    @Test(
        .bug(id: 41),
        arguments: [
            ["2024-01-01", "2023-05-05", "", "2024-01-01", "2025-12-31", "2024", "2024-01-01"],
            ["2024-01-01", "2024-01-01T10:00:00Z", "2024-01-01T09:59:59.999Z", "2024-01-01", ""],
            ["2024-01-01\u{0}", "2024-01-01", "2024-01-01\u{1}", "é", "e", "z", "2024-01-02"],
            ["abcdefgh", "abcdefghi", "abcdefgh", "abcdefghijklmnop", "abcdefghijklmnoq", "abcdefghijklmno"],
        ])
    func firstOrderIsNewestAddedFirstByBytes(_ dates: [String]) {
        let expected = dates.indices.sorted { a, b in
            let (first, second) = (Array(dates[a].utf8), Array(dates[b].utf8))
            return first == second ? a < b : second.lexicographicallyPrecedes(first)
        }
        #expect(
            LibraryPage.firstOrder(dates)
                == "<script type=\"application/json\" id=\"library-order\">["
                + expected.map(String.init).joined(separator: ",") + "]</script>\n")
    }

    @Test(.bug(id: 41)) func firstOrderOfDatesAndTimes() {
        let dates = ["2024-01-01", "2024-01-01T10:00:00Z", "", "2024-01-02", "2024-01-01"]
        #expect(LibraryPage.firstOrder(dates).contains(">[3,1,0,4,2]<"))
    }

    /// A library file of its books, one line each.
    static func library(_ books: [LibraryBook], in temp: TemporaryDirectory) throws -> Workspace {
        let workspace = Workspace(root: temp.file("ws"))
        try FileManager.default.createDirectory(atPath: workspace.libraryDirectory, withIntermediateDirectories: true)
        let lines = books.map { String(decoding: $0.jsonLine, as: UTF8.self) }.joined(separator: "\n") + "\n"
        try Data(lines.utf8).write(to: URL(fileURLWithPath: workspace.libraryFile))
        return workspace
    }

    static func books(_ count: Int) -> [LibraryBook] {
        (0..<count).map { index in
            var book = LibraryBook(id: String(format: "b%016x", index), title: "Book \(index)")
            book.shelf = index % 3 == 0 ? "read" : "to-read"
            book.shelves = ["tag\(index % 5)"]
            book.dateAdded = String(format: "2024-%02d-01", index % 12 + 1)
            return book
        }
    }

    @Test(.bug(id: 41)) func pageOfManyBatchesHoldsEveryBookInFileOrder() throws {
        let temp = TemporaryDirectory("library-batches")
        let count = LibraryPage.batchSize * 3 + 7
        let workspace = try Self.library(Self.books(count), in: temp)
        let html = try String(contentsOfFile: try LibraryPage.write(workspace: workspace), encoding: .utf8)
        let text = try #require(
            DOMText.matches("<script type=\"application/json\" id=\"library-books\">(.*?)</script>", in: html).first)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[Any]])
        #expect(rows.map { $0[LibraryPage.Column.id.rawValue] as? String } == (0..<count).map { String(format: "b%016x", $0) })
        #expect(html.contains("<title>Library: \(count) books</title>"))
    }

    @Test(.bug(id: 41)) func corruptLineAfterSeveralBatchesWritesNoPage() throws {
        let temp = TemporaryDirectory("library-corrupt")
        let workspace = try Self.library(Self.books(LibraryPage.batchSize * 2 + 10), in: temp)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: workspace.libraryFile))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("{\"id\":\"broken\n".utf8))
        try handle.close()
        #expect(throws: FileError.self) { try LibraryPage.write(workspace: workspace) }
        #expect(!FileManager.default.fileExists(atPath: LibraryPage.path(in: workspace)))
    }
}
