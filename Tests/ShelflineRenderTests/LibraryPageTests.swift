import Foundation
import TestSupport
import Testing

@testable import ShelflineCore
@testable import ShelflineLibrary
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
            book.provenance = [
                Contribution(importId: "i", format: .goodreads, lines: [index + 1], rowIds: nil, fields: ["created"])
            ]
            change(&book)
            books.append(book)
        }
        book(1, "Dune") {
            $0.series = "Dune"; $0.seriesPosition = "1"; $0.author = "Frank Herbert"; $0.shelf = "read"
            $0.rating = 5; $0.pages = 600; $0.coverId = 12345; $0.dateAdded = "2023-01-02"
            $0.reads = [ReadSpan(end: "2023-02-10"), ReadSpan(start: "2024-03-01", end: "2024-03-20")]
        }
        book(2, "Emma") {
            $0.author = "Jane Austen"; $0.shelf = "read"; $0.rating = 3.75; $0.pages = 400; $0.isbn13 = "9780141439587"
            $0.reads = [ReadSpan(end: "2024-03-05")]; $0.shelves = ["classics"]
        }
        book(3, "<script>alert(1)</script>") {
            $0.shelf = "to-read"; $0.shelves = ["classics", "to-read"]
        }
        book(4, "Neverwhere") {
            $0.author = "Neil Gaiman"; $0.shelf = "currently-reading"
        }
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
            let pairs = DOMText.matches(
                "data-shelf=\"([^\"]*\" data-count=\"[0-9]+)\"", in: DOMText.section("ul", id: id, in: dom)
            )
            .map { pair in pair.components(separatedBy: "\" data-count=\"") }
            return Dictionary(uniqueKeysWithValues: pairs.map { ($0[0], Int($0[1])!) })
        }
        #expect(shelves("exclusive-shelves") == stats.exclusiveShelves && stats.exclusiveShelves.count == 3)
        #expect(shelves("shelves") == stats.shelves && stats.shelves == ["classics": 2])
        // The charts' data: per year and per month, readings and pages.
        for (id, counts, pages) in [
            ("per-year", stats.finishedPerYear, stats.pagesPerYear), ("per-month", stats.finishedPerMonth, stats.pagesPerMonth),
        ] {
            let chart = DOMText.section("svg", id: id, in: dom)
            let periods = DOMText.matches("data-period=\"([^\"]+)\"", in: chart)
            let books = DOMText.matches("data-books=\"([0-9]+)\"", in: chart).compactMap { Int($0) }
            let pageCounts = DOMText.matches("data-pages=\"([0-9]+)\"", in: chart).compactMap { Int($0) }
            #expect(Dictionary(uniqueKeysWithValues: zip(periods, books)) == counts, "\(id)")
            #expect(
                Dictionary(uniqueKeysWithValues: zip(periods, pageCounts))
                    == pages.merging(counts.mapValues { _ in 0 }) { a, _ in a }, "\(id)")
        }
        #expect(stats.finishedPerYear == ["2023": 1, "2024": 2])
        // One row per book, in the script's default order (newest added first), covers lazy.
        let rows = DOMText.elements("tr", in: DOMText.section("table", id: "books", in: dom)).dropFirst()
        #expect(rows.count == stats.books)
        // Covers by cover id, else ISBN, fetched by the script as rows near the viewport; offline (as
        // here) each failed image removes itself and the row keeps its placeholder.
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(
            DOMText.matches("data-cover=\"([^\"]*)\"", in: dom).map { $0.replacingOccurrences(of: "&amp;", with: "&") }
                .sorted() == [
                    "https://covers.openlibrary.org/b/id/12345-M.jpg",
                    "https://covers.openlibrary.org/b/isbn/9780141439587-M.jpg?default=false",
                ])
        #expect(!html.contains("<img") && !html.contains("<tr data-id"), "the rows and images are the script's, not the file's")
        #expect(DOMText.matches("<div class=\"ph\">([^<]*)</div>", in: dom).count == stats.books)
        // The default order is newest added first (books without a date last).
        let ids = DOMText.matches("<tr data-id=\"([^\"]+)\"", in: dom)
        #expect(
            ids
                == ["b0000000000000001", "b0000000000000002", "b0000000000000003", "b0000000000000004"]
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
        let (status, _) = try ReportScreenshotTests.chromium(
            ["--screenshot=\(png)", "--window-size=1100,1400"], page: page,
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

    /// The books' data: every book (no cap), one array per book in file order; the first order
    /// lists every book once, newest added first, ties (and books without a date, last) in file order.
    @Test(.bug(id: 38)) func pageDataHoldsEveryBookAndTheFirstOrder() throws {
        let temp = TemporaryDirectory("library-data")
        let workspace = try Self.workspace(temp)
        let html = try String(contentsOfFile: try LibraryPage.write(workspace: workspace), encoding: .utf8)
        func data(_ id: String) throws -> Any {
            let text = try #require(
                DOMText.matches("<script type=\"application/json\" id=\"\(id)\">(.*?)</script>", in: html).first)
            return try JSONSerialization.jsonObject(with: Data(text.utf8))
        }
        let books = try #require(try data("library-books") as? [[Any]])
        #expect(
            books.map { $0[LibraryPage.Column.id.rawValue] as? String }
                == ["b0000000000000001", "b0000000000000002", "b0000000000000003", "b0000000000000004"])
        #expect(books.allSatisfy { $0.count == LibraryPage.Column.allCases.count })
        #expect(books[0][LibraryPage.Column.series.rawValue] as? String == "Dune #1")
        #expect(
            books[0][LibraryPage.Column.finishes.rawValue] as? Int == 2
                && books[0][LibraryPage.Column.finished.rawValue] as? String == "2024-03-20")
        #expect(
            books[1][LibraryPage.Column.rating.rawValue] as? Double == 3.75
                && books[1][LibraryPage.Column.cover.rawValue] as? String == "9780141439587")
        let names = try #require(try data("library-shelves") as? [String])
        #expect(
            books.map { names[$0[LibraryPage.Column.state.rawValue] as! Int] } == [
                "read", "read", "to-read", "currently-reading",
            ])
        #expect(
            books.map { ($0[LibraryPage.Column.shelves.rawValue] as! [Int]).map { names[$0] } } == [
                [], ["classics"], ["classics"], [],
            ])
        #expect(try data("library-order") as? [Int] == [0, 1, 2, 3])

        let dates = ["2024-01-01", "2023-05-05", "", "2024-01-01", "", "2025-12-31", "2023-05-05"]
        #expect(
            LibraryPage.firstOrder(dates) == "<script type=\"application/json\" id=\"library-order\">[5,0,3,1,6,2,4]</script>\n")
        #expect(LibraryPage.firstOrder([]) == "<script type=\"application/json\" id=\"library-order\">[]</script>\n")
    }

    /// A numbered cover becomes a URL by its source's declaration (`SourceShapes`), not by a URL the
    /// page knows: the script is built from the page's covers' templates, and a number of other
    /// covers is written out as its URL.
    @Test(.bug(id: 37)) func coverURLsComeFromTheSourcesDeclaration() throws {
        let toy = CoverURLTemplate(byId: "https://toy.example/c/{id}.jpg")
        let script = LibraryPage.coverScript(toy)
        #expect(script.contains("? 'https://toy.example/c/' + b[COVER] + '.jpg'"), "\(script)")
        #expect(script.hasSuffix(": b[COVER];") && !script.contains("openlibrary"), "\(script)")
        // Today's page: Open Library's covers, as the catalog and Open Library declare them.
        let temp = TemporaryDirectory("library-covers")
        let html = try String(contentsOfFile: try LibraryPage.write(workspace: try Self.workspace(temp)), encoding: .utf8)
        #expect(html.contains(LibraryPage.coverScript(SourceShapes.openLibraryCovers)))
        #expect(html.contains("? 'https://covers.openlibrary.org/b/id/' + b[COVER] + '-M.jpg'"))
        var book = LibraryBook(id: "b0000000000000009", title: "T")
        (book.coverId, book.enrichmentSource) = (8_231_856, "openlibrary")
        func cover(_ covers: CoverURLTemplate) -> String {
            var names = LibraryPage.ShelfNames(), out: [UInt8] = []
            LibraryPage.appendData(book, names: &names, to: &out, covers: covers)
            return String(decoding: out, as: UTF8.self)
        }
        #expect(cover(SourceShapes.openLibraryCovers).hasSuffix(",8231856]"))
        #expect(cover(toy).hasSuffix(",\"https://covers.openlibrary.org/b/id/8231856-M.jpg\"]"))
    }

    /// Markup, script and URL text in every value the page shows reaches it as text: the data's
    /// `<` are `\u003c` (no `</script>` ends its element early), the shelf buttons escape their
    /// names, and the script puts values in the DOM as text.
    @Test(.bug(id: 38), .enabled(if: ReportScreenshotTests.runnable))
    func everyValueReachesThePageAsText() throws {
        let temp = TemporaryDirectory("library-hostile")
        let workspace = Workspace(root: temp.file("ws"))
        try FileManager.default.createDirectory(atPath: workspace.libraryDirectory, withIntermediateDirectories: true)
        let hostile = [
            "</script><script>document.title='pwned'</script>", "<img src=x onerror=\"document.title='pwned'\">",
            "javascript:alert(1)", "<!--", "\"><b>bold</b>", "</SCRIPT ><svg onload=alert(1)>",
        ]
        var lines = ""
        for (index, text) in hostile.enumerated() {
            var book = LibraryBook(id: String(format: "b%016x", index + 1), title: text)
            (book.author, book.series, book.seriesPosition, book.shelf, book.shelves) = (text, text, text, text, [text + " tag"])
            (book.dateAdded, book.isbn13) = ("2024-01-0\(index + 1)", text)
            lines += String(decoding: book.jsonLine, as: UTF8.self) + "\n"
        }
        try Data(lines.utf8).write(to: URL(fileURLWithPath: workspace.libraryFile))
        let page = try LibraryPage.write(workspace: workspace)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(
            html.components(separatedBy: "</script").count - 1 == 4
                && html.lowercased().components(separatedBy: "</script").count - 1 == 4,
            "the page's own four script elements end where they should")
        #expect(!html.contains("<img") && !html.contains("<b>") && !html.contains("<!--") && !html.contains("<svg onload"))
        let (status, dom) = try ReportScreenshotTests.chromium(["--dump-dom"], page: page, profile: temp.file("profile"))
        #expect(status == 0)
        #expect(DOMText.elements("title", in: dom) == ["Library: \(hostile.count) books"])
        #expect(!dom.contains("<img") && !dom.contains("<b>") && !dom.contains("<svg onload") && !dom.contains("<!--"), "\(dom)")
        let rows = DOMText.elements("tr", in: DOMText.section("table", id: "books", in: dom)).dropFirst()
        #expect(rows.count == hostile.count)
        // Each value is shown as its text (the DOM dump escapes it again).
        let titles = DOMText.matches("<span class=\"title\">(.*?)</span>", in: dom).map(DOMText.text)
        #expect(Set(titles) == Set(hostile), "\(titles)")
        let authors = DOMText.matches("<span class=\"author\">(.*?)</span>", in: dom).map(DOMText.text)
        #expect(Set(authors) == Set(hostile), "\(authors)")
        let buttons = DOMText.matches("data-shelf=\"([^\"]*)\"", in: dom).map(DOMText.text)
        #expect(Set(buttons) == Set(hostile + hostile.map { $0 + " tag" }), "\(buttons)")
        // Covers only ever point at Open Library.
        #expect(
            DOMText.matches("data-cover=\"([^\"]*)\"", in: dom).allSatisfy {
                $0.hasPrefix("https://covers.openlibrary.org/b/isbn/")
            })
    }

    /// Past 18 months a bar is labelled by its month's number; the year stands under the first
    /// bar and under each January (or the first month of a year that has bars).
    @Test(.bug(id: 38)) func monthChartLabelsCarryTheirYearWhereItChanges() {
        let months = [
            "2022-11", "2022-12", "2023-01", "2023-02", "2023-03", "2023-05", "2023-06", "2023-07", "2023-08",
            "2023-09", "2023-10", "2023-11", "2023-12", "2024-01", "2024-02", "2024-03", "2024-04", "2024-07", "2025-03",
        ]
        let counts = Dictionary(uniqueKeysWithValues: months.map { ($0, 1) })
        let svg = LibraryPage.chart(id: "per-month", counts: counts, pages: [:])
        let bars = DOMText.matches("(<g class=\"bar\".*?</g>)", in: svg)
        #expect(bars.count == months.count)
        let labelled = zip(months, bars).compactMap { month, bar in
            DOMText.matches("<text class=\"year\"[^>]*>([0-9]{4})</text>", in: bar).first.map { "\(month) \($0)" }
        }
        #expect(labelled == ["2022-11 2022", "2023-01 2023", "2024-01 2024", "2025-03 2025"])
        #expect(DOMText.matches("text-anchor=\"middle\">([0-9]{2})</text>", in: svg) == months.map { String($0.suffix(2)) })
        // Few months keep their whole label, and no second line.
        let few = LibraryPage.chart(id: "per-month", counts: ["2023-12": 1, "2024-01": 2], pages: [:])
        #expect(!few.contains("class=\"year\"") && few.contains(">2024-01</text>"))
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
