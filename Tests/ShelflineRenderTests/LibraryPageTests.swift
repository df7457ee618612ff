import Foundation
import ShelflineCore
import ShelflineLibrary
import Testing
import TestSupport

@testable import ShelflineRender

/// `library.html` in a real headless Chromium: the DOM it built carries the library's counts (books,
/// shelves, readings finished per year and month with their pages) and one row per book, and the
/// script's search box filters rows. Skips without a browser locally; fails under `CI=true`.
@Suite struct LibraryPageTests {
    /// A small library with the shapes the page shows: series, ratings (a quarter star), rereads,
    /// pages, a cover id, an ISBN only, nothing, and a title that is markup.
    static func workspace(_ temp: TemporaryDirectory) throws -> Workspace {
        let workspace = Workspace(root: temp.file("ws"))
        try FileManager.default.createDirectory(atPath: workspace.libraryDirectory, withIntermediateDirectories: true)
        var books: [LibraryBook] = []
        func book(_ index: Int, _ title: String, _ change: (inout LibraryBook) -> Void) {
            var book = LibraryBook(id: String(format: "b%016x", index), title: title)
            book.provenance = [Contribution(importId: "i", format: .goodreads, lines: [index + 1], rowIds: nil, fields: ["created"])]
            change(&book)
            books.append(book)
        }
        book(1, "Dune") { $0.series = "Dune"; $0.seriesPosition = "1"; $0.author = "Frank Herbert"; $0.shelf = "read"
            $0.rating = 5; $0.pages = 600; $0.coverId = 12345; $0.dateAdded = "2023-01-02"
            $0.reads = [ReadSpan(end: "2023-02-10"), ReadSpan(start: "2024-03-01", end: "2024-03-20")] }
        book(2, "Emma") { $0.author = "Jane Austen"; $0.shelf = "read"; $0.rating = 3.75; $0.pages = 400; $0.isbn13 = "9780141439587"
            $0.reads = [ReadSpan(end: "2024-03-05")]; $0.shelves = ["classics"] }
        book(3, "<script>alert(1)</script>") { $0.shelf = "to-read"; $0.shelves = ["classics", "to-read"] }
        book(4, "Neverwhere") { $0.author = "Neil Gaiman"; $0.shelf = "currently-reading" }
        let lines = books.map { String(decoding: $0.jsonLine, as: UTF8.self) }.joined(separator: "\n") + "\n"
        try Data(lines.utf8).write(to: URL(fileURLWithPath: workspace.libraryFile))
        return workspace
    }

    /// `dateAdded` of the fixture's books that have one.
    static let added = ["b0000000000000001": "2023-01-02"]

    @Test(.enabled(if: ReportScreenshotTests.runnable))
    func libraryPageInChromiumShowsTheLibrarysCounts() throws {
        let temp = TemporaryDirectory("library-dom")
        let workspace = try Self.workspace(temp)
        let page = try LibraryPage.write(workspace: workspace)
        let (status, dom) = try ReportScreenshotTests.chromium(["--dump-dom"], page: page, profile: temp.file("profile"))
        #expect(status == 0)
        let stats = try LibraryStats.read(path: workspace.libraryFile)

        #expect(DOMText.elements("h1", in: dom) == ["Library"])
        let summary = try #require(DOMText.elements("p", in: dom).first)
        #expect(summary == "\(stats.books) books · 3 readings finished · 1600 pages read", "\(summary)")
        // Shelves: each button's count is the library's.
        func shelves(_ id: String) -> [String: Int] {
            let pairs = DOMText.matches("data-shelf=\"([^\"]*\" data-count=\"[0-9]+)\"", in: DOMText.section("ul", id: id, in: dom))
                .map { pair in pair.components(separatedBy: "\" data-count=\"") }
            return Dictionary(uniqueKeysWithValues: pairs.map { ($0[0], Int($0[1])!) })
        }
        #expect(shelves("exclusive-shelves") == stats.exclusiveShelves && stats.exclusiveShelves.count == 3)
        #expect(shelves("shelves") == stats.shelves && stats.shelves == ["classics": 2])
        // The charts' data: per year and per month, readings and pages.
        for (id, counts, pages) in [("per-year", stats.finishedPerYear, stats.pagesPerYear), ("per-month", stats.finishedPerMonth, stats.pagesPerMonth)] {
            let chart = DOMText.section("svg", id: id, in: dom)
            let periods = DOMText.matches("data-period=\"([^\"]+)\"", in: chart)
            let books = DOMText.matches("data-books=\"([0-9]+)\"", in: chart).compactMap { Int($0) }
            let pageCounts = DOMText.matches("data-pages=\"([0-9]+)\"", in: chart).compactMap { Int($0) }
            #expect(Dictionary(uniqueKeysWithValues: zip(periods, books)) == counts, "\(id)")
            #expect(Dictionary(uniqueKeysWithValues: zip(periods, pageCounts)) == pages.merging(counts.mapValues { _ in 0 }) { a, _ in a }, "\(id)")
        }
        #expect(stats.finishedPerYear == ["2023": 1, "2024": 2])
        // One row per book, in the script's default order (newest added first), covers lazy.
        let rows = DOMText.elements("tr", in: DOMText.section("table", id: "books", in: dom)).dropFirst()
        #expect(rows.count == stats.books)
        // Covers by cover id, else ISBN, fetched by the script as rows near the viewport; offline (as
        // here) each failed image removes itself and the row keeps its placeholder.
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(DOMText.matches("data-cover=\"([^\"]*)\"", in: html)
                    .sorted() == ["https://covers.openlibrary.org/b/id/12345-M.jpg", "https://covers.openlibrary.org/b/isbn/9780141439587-M.jpg?default=false"])
        #expect(!html.contains("<img"), "no image is in the page itself")
        #expect(DOMText.matches("<div class=\"ph\">([^<]*)</div>", in: dom).count == stats.books)
        // The default order is newest added first (books without a date last).
        let ids = DOMText.matches("<tr data-id=\"([^\"]+)\"", in: dom)
        #expect(ids == ["b0000000000000001", "b0000000000000002", "b0000000000000003", "b0000000000000004"]
                    .sorted { (Self.added[$0] ?? "", $1) > (Self.added[$1] ?? "", $0) }, "\(ids)")
        // Markup in a title is text.
        #expect(!dom.contains("<script>alert(1)</script>") && dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(dom.contains("id=\"search\"") && dom.contains("id=\"sort\""))
    }

    @Test(.enabled(if: ReportScreenshotTests.runnable))
    func libraryPageScreenshotShowsBooksAndChart() throws {
        let temp = TemporaryDirectory("library-shot")
        let page = try LibraryPage.write(workspace: try Self.workspace(temp))
        let png = temp.file("library.png")
        let (status, _) = try ReportScreenshotTests.chromium(["--screenshot=\(png)", "--window-size=1100,1400"], page: page,
                                                             profile: temp.file("profile"))
        #expect(status == 0)
        let image = try PNGImage(data: Data(contentsOf: URL(fileURLWithPath: png)))
        let background = image.pixel(x: 0, y: 0)
        #expect(Double(image.pixels.filter { $0 != background }.count) / Double(image.pixels.count) > 0.01)
        // The chart's bars (#4285f4) were painted.
        #expect(image.pixels.contains { abs(Int($0.r) - 66) <= 4 && abs(Int($0.g) - 133) <= 4 && abs(Int($0.b) - 244) <= 4 })
    }

    @Test func reportPageLinksToTheLibraryPage() {
        #expect(ImportActivityRenderer.relativePath(of: "/w/library.html", from: "/w/runs/abc") == "../../library.html")
        #expect(ImportActivityRenderer.relativePath(of: "/w/library.html", from: "/elsewhere/run") == "/w/library.html")
    }

    @Test func pageListsTheMostRecentlyAddedBooksUpToItsCapAndCountsThemAll() throws {
        let temp = TemporaryDirectory("library-cap")
        let workspace = try Self.workspace(temp)
        let html = try String(contentsOfFile: try LibraryPage.write(workspace: workspace, maximumRows: 2), encoding: .utf8)
        let ids = DOMText.matches("<tr data-id=\"([^\"]+)\"", in: html)
        // Only book 1 has a date added; among the undated, the larger id sorts later in the key.
        #expect(ids.sorted() == ["b0000000000000001", "b0000000000000004"], "\(ids)")
        #expect(DOMText.elements("p", in: html).first == "4 books · 3 readings finished · 1600 pages read")
        #expect(DOMText.section("p", id: "capped", in: html).hasPrefix("The 2 most recently added of 4 books;"))
    }

    /// The page's one pass keeps the books to list in a heap: the same books as cutting every book's
    /// key at the `maximumRows`-th greatest, whatever the order they come in, written newest added
    /// first (ties in file order).
    @Test func listedBooksAreTheLatestAddedNewestFirst() {
        var seed: UInt64 = 0x5eed
        func next(_ bound: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(bound))
        }
        for round in 0..<20 {
            let count = 1 + next(300)
            let books = (0..<count).map { index in
                var book = LibraryBook(id: String(format: "b%016x", next(1 << 30) << 8 | index), title: "T\(index)")
                // Few distinct dates (ties broken by id), some books without one.
                if next(4) > 0 { book.dateAdded = "2024-0\(1 + next(9))-1\(next(3))" }
                book.author = "A\(round)"
                book.reads = [ReadSpan(end: "2024-05-0\(1 + next(9))")]
                return book
            }
            for capacity in [0, 1, 7, count - 1, count, count + 3] where capacity >= 0 {
                var listed = LibraryPage.ListedBooks(capacity: capacity)
                for book in books { listed.offer(book) }
                var kept: [LibraryBook] = []
                listed.forEachInPageOrder { kept.append($0) }
                let cut = Set(books.map(LibraryPage.listingKey).sorted(by: >).prefix(capacity))
                let expected = books.enumerated().filter { cut.contains(LibraryPage.listingKey($0.element)) }
                    .sorted { ($0.element.dateAdded ?? "", $1.offset) > ($1.element.dateAdded ?? "", $0.offset) }.map(\.element)
                #expect(kept.map(\.id) == expected.map(\.id), "\(count) books, capacity \(capacity)")
                // What the row reads comes through.
                let shelves = LibraryPage.ShelfButtons(LibraryStats())
                #expect(kept.map { LibraryPage.row($0, shelves: shelves) } == expected.map { LibraryPage.row($0, shelves: shelves) })
            }
        }
    }

    @Test func pageWithoutLibraryIsAnEmptyPage() throws {
        let temp = TemporaryDirectory("library-empty")
        try FileManager.default.createDirectory(atPath: temp.file("ws-empty"), withIntermediateDirectories: true)
        let page = try LibraryPage.write(workspace: Workspace(root: temp.file("ws-empty")))
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(DOMText.elements("p", in: html).first == "0 books · 0 readings finished · 0 pages read")
        #expect(html.contains("No finished readings yet."))
    }
}
