import Foundation
import ShelflineCore
import TestSupport
import TestTraits
import Testing

@testable import ShelflineLibrary

/// The library page's script driven in headless Chromium: the page `shelfline library html` wrote
/// (building 2 rows at a time instead of 100), with a test-only script appended after the page's
/// own that types in the search box, changes the sort and clicks the shelf buttons through real DOM
/// events, and records the rows shown after each step: the first page, then every page ("Show more"). Each step's rows are compared with rows computed here from the library file
/// (not from `LibraryStats`, which the page uses). Neither the fixture's file order nor the page's
/// first order (newest added) is any other sort's order, so a page that never sorts fails. Skips without a browser locally; fails under CI.
@Suite(.offCooperativePool) struct LibraryPageScriptTests {
    /// A book of the fixture; `index` is its place in the library file.
    struct Book {
        var index: Int
        var id, title: String
        var author, series, seriesPosition, shelf, added: String?
        var shelves: [String]
        var rating: Double?
        var ends: [String]

        init(index: Int, json: [String: Any]) {
            self.index = index
            id = json["id"] as! String
            title = json["title"] as! String
            author = json["author"] as? String
            series = json["series"] as? String
            seriesPosition = json["seriesPosition"] as? String
            shelf = json["shelf"] as? String
            added = json["dateAdded"] as? String
            shelves = json["shelves"] as? [String] ?? []
            rating = (json["rating"] as? NSNumber)?.doubleValue
            ends = (json["reads"] as? [[String: Any]] ?? []).compactMap { $0["end"] as? String }
        }
    }

    /// Titles, authors and shelves chosen so that substring matching of shelf names gives other
    /// rows (`science fiction`, `science, fiction`, `fiction`, `science`, a tag `read` on a to-read
    /// book, a book with no reading state), with dates added, ratings and finishes in no file order.
    static func writeLibrary(_ path: String) throws {
        var books: [LibraryBook] = []
        func book(_ title: String, _ change: (inout LibraryBook) -> Void) {
            var book = LibraryBook(id: String(format: "b%016x", books.count + 1), title: title)
            book.provenance = [
                Contribution(importId: "i", format: .goodreads, lines: [books.count + 2], rowIds: nil, fields: ["created"])
            ]
            change(&book)
            books.append(book)
        }
        book("Dune") {
            $0.author = "Frank Herbert"; $0.series = "Dune"; $0.seriesPosition = "1"; $0.shelf = "read"
            $0.shelves = ["science fiction", "favourites"]; $0.rating = 5; $0.dateAdded = "2023-05-01";
            $0.reads = [ReadSpan(end: "2023-06-10")]
        }
        book("Anathem") {
            $0.author = "Neal Stephenson"; $0.shelf = "read"; $0.shelves = ["science, fiction"]; $0.rating = 3.75
            $0.dateAdded = "2024-01-15"; $0.reads = [ReadSpan(end: "2022-01-01"), ReadSpan(end: "2024-02-01")]
        }
        book("Emma") {
            $0.author = "Jane Austen"; $0.shelf = "to-read"; $0.shelves = ["fiction", "read"]; $0.dateAdded = "2021-03-03"
        }
        book("Cryptonomicon") {
            $0.author = "Neal Stephenson"; $0.shelves = ["science"]; $0.rating = 4
        }
        book("Beloved") {
            $0.author = "Toni Morrison"; $0.shelf = "currently-reading"; $0.shelves = ["fiction", "fiction"]
            $0.rating = 2; $0.dateAdded = "2024-01-15"
        }
        book("Zen and the Art of Motorcycle Maintenance") {
            $0.author = "Robert Pirsig"; $0.shelf = "read"
            $0.shelves = ["read", "philosophy"]; $0.rating = 4; $0.dateAdded = "2022-07-07";
            $0.reads = [ReadSpan(end: "2022-08-01")]
        }
        book("The Fiction Writer") {
            $0.author = "Ann Smith"; $0.shelf = "to-read"; $0.dateAdded = "2020-01-01"
        }
        book("Middlemarch") {
            $0.shelf = "read"; $0.shelves = ["classics"]; $0.rating = 1; $0.dateAdded = "2025-01-01"
            $0.reads = [ReadSpan(end: "2025-02-02")]
        }
        try GzipFixture.write(text: books.map { String(decoding: $0.jsonLine, as: UTF8.self) + "\n" }.joined(), to: path)
    }

    /// The library file's books, in file order.
    static func readLibrary(_ path: String) throws -> [Book] {
        var books: [Book] = []
        try LineReader.forEachLine(path: path) { bytes, _ in
            guard !bytes.isEmpty else { return }
            let json = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            books.append(Book(index: books.count, json: json))
        }
        return books
    }

    /// One user action, as the driver script takes it.
    enum Action: Encodable {
        case search(String)
        case sort(String)
        /// Clicks the button of `shelf` in the list `list` (`exclusive-shelves` or `shelves`).
        case click(list: String, shelf: String)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .search(let text): try container.encode(["search": text])
            case .sort(let value): try container.encode(["sort": value])
            case .click(let list, let shelf): try container.encode(["list": list, "click": shelf])
            }
        }
    }

    /// The page's state after each action, as the test expects it from the library.
    struct Model {
        var books: [Book]
        var words: [String] = []
        var sort = "added-desc"
        var filter: (list: String, shelf: String)?

        /// What a book is searched by: the title, series, author and every shelf it is on.
        func searchText(_ book: Book) -> String {
            let series = book.series.map { series in "(" + (book.seriesPosition.map { "\(series) #\($0)" } ?? series) + ")" }
            return ([book.title, series, book.author, book.shelf ?? "none"].compactMap { $0 } + book.shelves)
                .joined(separator: " ").lowercased()
        }

        /// A book is on an exclusive shelf when it is its shelf (`none`: it has none), on another
        /// shelf when the book lists it and it is not the book's exclusive shelf.
        func isOn(_ book: Book, list: String, shelf: String) -> Bool {
            list == "exclusive-shelves" ? (book.shelf ?? "none") == shelf : book.shelves.contains(shelf) && book.shelf != shelf
        }

        func isVisible(_ book: Book) -> Bool {
            let text = searchText(book)
            guard words.allSatisfy(text.contains) else { return false }
            return filter.map { isOn(book, list: $0.list, shelf: $0.shelf) } ?? true
        }

        /// The page's first order: newest added first (a book without a date last), ties in file order.
        var firstOrder: [String] {
            books.sorted { a, b in (a.added ?? "") != (b.added ?? "") ? (a.added ?? "") > (b.added ?? "") : a.index < b.index }
                .map(\.id)
        }

        /// Sorted by the menu's key (missing dates and authors sort as empty, an unrated book as
        /// 0), ties in the first order.
        var visibleIds: [String] {
            let parts = sort.split(separator: "-"), name = String(parts[0]), descending = parts[1] == "desc"
            let rank = Dictionary(uniqueKeysWithValues: firstOrder.enumerated().map { ($1, $0) })
            func key(_ book: Book) -> String {
                switch name {
                case "added": book.added ?? ""
                case "finished": book.ends.max() ?? ""
                case "title": book.title.lowercased()
                case "author": book.author?.lowercased() ?? ""
                default: ""
                }
            }
            let sorted = books.sorted { a, b in
                if name == "rating" {
                    let x = a.rating ?? 0, y = b.rating ?? 0
                    if x != y { return descending ? x > y : x < y }
                } else if key(a) != key(b) {
                    return descending ? key(a) > key(b) : key(a) < key(b)
                }
                return rank[a.id]! < rank[b.id]!
            }
            return sorted.filter(isVisible).map(\.id)
        }

        mutating func apply(_ action: Action) {
            switch action {
            case .search(let text): words = text.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
            case .sort(let value): sort = value
            case .click(let list, let shelf):
                filter = filter.map { $0.list == list && $0.shelf == shelf } == true ? nil : (list, shelf)
            }
        }
    }

    /// The rows the page builds at a time in this test (`data-page`; the page's own is 100), so
    /// that most steps show their books over several pages.
    static let pageRows = 2

    /// Appended after the page's own script: runs `actions` through real events and leaves, in
    /// `<pre id="drive">`, for each, the ids of the rows displayed at first, then those displayed
    /// after pressing "Show more" until it hides (in order), and the "shown" count.
    static func driver(_ actions: [Action]) throws -> String {
        let json = String(decoding: try JSONEncoder().encode(actions), as: UTF8.self)
            .replacingOccurrences(of: "</", with: "<\\/")
        return """
            <script>
            (function () {
              function visible() {
                return Array.prototype.filter.call(document.querySelectorAll('#books tbody tr'), function (row) {
                  return getComputedStyle(row).display !== 'none';
                }).map(function (row) { return row.dataset.id; });
              }
              var steps = [], search = document.getElementById('search'), sort = document.getElementById('sort');
              \(json).forEach(function (action) {
                if ('search' in action) {
                  search.value = action.search;
                  search.dispatchEvent(new Event('input', { bubbles: true }));
                } else if ('sort' in action) {
                  sort.value = action.sort;
                  sort.dispatchEvent(new Event('change', { bubbles: true }));
                } else {
                  var button = Array.prototype.filter.call(document.querySelectorAll('#' + action.list + ' button'),
                    function (b) { return b.dataset.shelf === action.click; })[0];
                  if (button) button.click();
                }
                var firstPage = visible(), more = document.getElementById('more'), presses = 0;
                while (!more.hidden && presses++ < 1000) more.click();
                steps.push({ firstPage: firstPage, ids: visible(), shown: +document.getElementById('shown').textContent });
              });
              var pre = document.createElement('pre');
              pre.id = 'drive';
              pre.textContent = JSON.stringify(steps);
              document.body.appendChild(pre);
            })();
            </script>
            """
    }

    struct Step: Decodable { var firstPage, ids: [String]; var shown: Int }

    @Test(.bug(id: 36), .bug(id: 42), .bug(id: 38), .enabled(if: ReportScreenshotTests.runnable))
    func searchSortAndShelfButtonsShowTheRowsTheLibraryHolds() throws {
        let temp = TemporaryDirectory("library-script")
        let workspace = temp.file("ws")
        try FileManager.default.createDirectory(atPath: workspace + "/library", withIntermediateDirectories: true)
        let library = workspace + "/library/library.ndjson.gz"
        try Self.writeLibrary(library)
        let config = try ConfigFile.shippedExample().write(to: temp.file("pipeline.json"))
        let html = try ExecutableRunner.run(
            "shelfline", ["library", "html", "--workspace", workspace, "--config", config, "--quiet"])
        try #require(html.status == 0, "\(html)")

        let books = try Self.readLibrary(library)
        // The buttons the library calls for, each list's names.
        let states = Set(books.map { $0.shelf ?? "none" })
        let others = Set(books.flatMap { book in book.shelves.filter { $0 != book.shelf } })
        let sorts = ["added-desc", "added-asc", "finished-desc", "title-asc", "author-asc", "rating-desc"]
        var actions: [Action] = sorts.map { .sort($0) } + [.sort("added-desc")]
        for word in ["fiction", "science fiction", "NEAL", "herbert dune", "read", "none", "zzz", ""] {
            actions.append(.search(word))
        }
        for (list, names) in [("exclusive-shelves", states), ("shelves", others)] {
            for name in names.sorted() { actions += [.click(list: list, shelf: name), .click(list: list, shelf: name)] }
        }
        // Together: a shelf, then a sort and a search within it, then a second button replaces the first.
        actions += [
            .click(list: "shelves", shelf: "fiction"), .sort("title-asc"), .search("e"),
            .click(list: "exclusive-shelves", shelf: "read"), .search(""), .sort("rating-desc"),
        ]

        var page = try String(contentsOfFile: workspace + "/library.html", encoding: .utf8)
        let end = try #require(page.range(of: "</body>", options: .backwards))
        page.replaceSubrange(end, with: try Self.driver(actions) + "\n</body>")
        let pageSize = try #require(page.range(of: "data-page=\"100\""), "the page says how many rows it builds at a time")
        page.replaceSubrange(pageSize, with: "data-page=\"\(Self.pageRows)\"")
        let driven = temp.file("driven.html")
        try page.write(toFile: driven, atomically: true, encoding: .utf8)
        let (status, dom) = try ReportScreenshotTests.chromium(["--dump-dom"], page: driven, profile: temp.file("profile"))
        #expect(status == 0)

        // The buttons and their counts: one per shelf the library has, each counting its books.
        var model = Model(books: books)
        for (list, names) in [("exclusive-shelves", states), ("shelves", others)] {
            let section = DOMText.section("ul", id: list, in: dom)
            let shelves = DOMText.matches("data-shelf=\"([^\"]*)\"", in: section).map(DOMText.text)
            let counts = DOMText.matches("data-count=\"([0-9]+)\"", in: section).compactMap { Int($0) }
            #expect(Set(shelves) == names && shelves.count == names.count, "\(list): \(shelves)")
            for (shelf, count) in zip(shelves, counts) {
                #expect(count == books.filter { model.isOn($0, list: list, shelf: shelf) }.count, "\(list) \(shelf)")
            }
        }

        let text = try #require(DOMText.matches("<pre id=\"drive\">(.*?)</pre>", in: dom).first, "the driver ran")
        let json = text.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
        let steps = try JSONDecoder().decode([Step].self, from: Data(json.utf8))
        try #require(steps.count == actions.count)
        let fileOrder = books.map(\.id), firstOrder = model.firstOrder
        #expect(firstOrder != fileOrder, "the page, not the file, puts the newest added first")
        for (action, step) in zip(actions, steps) {
            model.apply(action)
            let expected = model.visibleIds
            #expect(
                step.ids == expected,
                "after \(action) (sort \(model.sort), words \(model.words), shelf \(model.filter.map { "\($0)" } ?? "none"))")
            #expect(step.shown == expected.count, "after \(action): the count shown")
            #expect(step.firstPage == Array(expected.prefix(Self.pageRows)), "after \(action): a page of rows at first")
            if case .sort(let value) = action, value != "added-desc", model.words.isEmpty, model.filter == nil {
                #expect(expected != firstOrder && expected != fileOrder, "the page is not already in \(value) order")
            }
        }
    }
}
