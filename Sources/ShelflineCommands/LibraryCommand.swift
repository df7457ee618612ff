import ArgumentParser
import Foundation
import ShelflineCore
import ShelflineLibrary
import ShelflineRender
import ShelflineStageCLI

/// `shelfline library`: the library on the terminal (`list`, `show`, `stats`, `--json` for
/// scripts) and its page (`html`).
struct LibraryCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "library",
        abstract: "Show the library: list a shelf, show one book with its provenance, stats, or write its page.",
        discussion: helpDiscussion(
            """
            Reads <workspace>/library/library.ndjson.gz. As text, control characters in the library's \
            values are shown escaped (\\u{1B}, \\n, \\t), so a title cannot drive the terminal; --json \
            keeps the exact text. Exit statuses: 0 done; 64 bad option, or a book \
            that matches nothing or several books; 65 corrupt library; 66 no library yet; 73 page cannot \
            be written.
            """),
        subcommands: [List.self, Show.self, Stats.self, HTML.self])

    /// What every `library` subcommand takes.
    struct Options: ParsableArguments {
        @OptionGroup public var common: CommonOptions
        @Flag(name: .long, help: "JSON for scripts instead of text.") public var json = false

        func workspace() throws -> Workspace { try common.context(stages: Stage.pipeline).workspace }
    }

    /// `library list [--shelf NAME]...`.
    struct List: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(
            commandName: "list", abstract: "One line per book (id, shelf, rating, title, author); --json: one object per line.")
        @OptionGroup public var options: Options
        @Option(
            name: .long,
            help:
                "Only books on this shelf (exclusive or not); repeat for several; one no book is on exits 64 naming the library's shelves."
        ) public var shelf: [String] = []

        public func run() async throws {
            try await reportingErrors(as: "shelfline library") {
                var selection = ShelfSelection(Set(shelf))
                var out = ""
                try LibraryBooks.forEach(path: try options.workspace().libraryFile) { book, _ in
                    guard selection.contains(book) else { return }
                    out += options.json ? LibraryListing.json(book) + "\n" : LibraryListing.line(book) + "\n"
                    if out.utf8.count > 1 << 16 { print(out, terminator: ""); out = "" }
                }
                print(out, terminator: "")
                try selection.requireEveryShelf()
            }
        }
    }

    /// `library show BOOK`.
    struct Show: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(
            commandName: "show", abstract: "One book's whole record and which imports set which fields; --json: its library line."
        )
        @OptionGroup public var options: Options
        @Argument(help: "A book id (b…), an ISBN, or words of the title (must match one book).") public var book: String

        public func run() async throws {
            try await reportingErrors(as: "shelfline library") {
                let matches = try LibraryListing.find(book, in: try options.workspace().libraryFile)
                guard matches.count == 1, let (found, line) = matches.first else {
                    let listed = matches.prefix(5).map { "\($0.0.id) \($0.0.title)" }.joined(separator: "; ")
                    throw UsageError(
                        matches.isEmpty
                            ? "no book matches '\(book)' (try `shelfline library list`)"
                            : "\(matches.count) books match '\(book)' (\(listed)\(matches.count > 5 ? "; …" : "")); give its id")
                }
                print(options.json ? line : LibraryListing.details(found))
            }
        }
    }

    /// `library stats`.
    struct Stats: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(
            commandName: "stats", abstract: "Books per shelf, readings finished per year, pages, ratings histogram.")
        @OptionGroup public var options: Options

        public func run() async throws {
            try await reportingErrors(as: "shelfline library") {
                let stats = try LibraryStats.read(path: try options.workspace().libraryFile)
                if options.json {
                    print(String(decoding: try JSONEncoder.shelfline.encode(stats), as: UTF8.self))
                } else {
                    print(LibraryListing.summary(stats), terminator: "")
                }
            }
        }
    }

    /// `library html`.
    struct HTML: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(
            commandName: "html", abstract: "Write <workspace>/library.html now (render writes it after each import).")
        @OptionGroup public var options: Options

        public func run() async throws {
            try await reportingErrors(as: "shelfline library") {
                let workspace = try options.workspace()
                try LibraryBooks.requireLibrary(workspace.libraryFile)
                let path = try LibraryPage.write(workspace: workspace)
                if !options.common.quiet { print(path) }
            }
        }
    }
}

/// How `shelfline library` prints books and stats. As text, every library value has its control
/// characters escaped, so a title cannot drive the terminal; `--json` keeps the exact text.
enum LibraryListing {
    static func line(_ book: LibraryBook) -> String {
        let rating = book.rating.map { "★" + (ExportCells.stars($0) ?? "") } ?? "  "
        let series = book.series.map { " (\($0)\(book.seriesPosition.map { " #\($0)" } ?? ""))" } ?? ""
        let shelf = (book.shelf ?? "-").escapingControlCharacters
        return
            "\(book.id.escapingControlCharacters)  \(shelf.padding(toLength: 17, withPad: " ", startingAt: 0)) \(rating.padding(toLength: 5, withPad: " ", startingAt: 0)) "
            + "\(book.title)\(series)\(book.author.map { " — \($0)" } ?? "")".escapingControlCharacters
    }

    static func json(_ book: LibraryBook) -> String {
        var object: [String: Any] = ["id": book.id, "title": book.title]
        object["author"] = book.author
        object["series"] = book.series
        object["seriesPosition"] = book.seriesPosition
        object["shelf"] = book.shelf
        object["shelves"] = book.shelves
        object["rating"] = book.rating
        object["dateAdded"] = book.dateAdded
        object["finished"] = LibraryStats.finishes(book).max()
        object["isbn13"] = book.isbn13
        let data =
            (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// By id, by ISBN, else every book whose title holds all the query's words.
    static func find(_ query: String, in path: String) throws -> [(LibraryBook, String)] {
        let words = query.lowercased().split(separator: " ").map(String.init)
        let digits = query.filter { $0.isNumber || $0 == "X" }
        var exact: [(LibraryBook, String)] = [], byTitle: [(LibraryBook, String)] = []
        try LibraryBooks.forEach(path: path) { book, bytes in
            let line = String(decoding: bytes, as: UTF8.self)
            if book.id == query || (digits.count >= 10 && (book.isbn13 == digits || book.isbn10 == digits)) {
                exact.append((book, line))
            } else if !words.isEmpty, words.allSatisfy(book.title.lowercased().contains) {
                byTitle.append((book, line))
            }
        }
        return exact.isEmpty ? byTitle : exact
    }

    /// One line per field, then the provenance.
    static func details(_ book: LibraryBook) -> String {
        let object = (try? JSONSerialization.jsonObject(with: Data(book.jsonLine))) as? [String: Any] ?? [:]
        var text = "\(book.title)\(book.author.map { " — \($0)" } ?? "")".escapingControlCharacters + "\n"
        for key in object.keys.sorted() where key != "provenance" {
            let value = object[key]!
            let shown =
                (try? JSONSerialization.data(
                    withJSONObject: value, options: [.fragmentsAllowed, .withoutEscapingSlashes, .sortedKeys]))
                .map { String(decoding: $0, as: UTF8.self) } ?? "\(value)"
            text +=
                "  \(key.escapingControlCharacters.padding(toLength: 26, withPad: " ", startingAt: 0)) \(shown.escapingControlCharacters)\n"
        }
        text += "Provenance (oldest first):\n"
        for contribution in book.provenance {
            let described =
                "import \(contribution.importId) (\(contribution.format.rawValue), line\(contribution.lines.count == 1 ? "" : "s") "
                + "\(contribution.lines.map(String.init).joined(separator: ", "))"
                + "\(contribution.rowIds.map { ", row id \($0.joined(separator: ", "))" } ?? "")): "
                + (contribution.fields == ["created"] ? "created the book" : "set \(contribution.fields.joined(separator: ", "))")
            text += "  \(described.escapingControlCharacters)\n"
        }
        return text
    }

    static func summary(_ stats: LibraryStats) -> String {
        func table(_ counts: [String: Int], byCount: Bool) -> String {
            let ordered = byCount ? counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) } : counts.sorted { $0.key < $1.key }
            return ordered.map {
                "  \($0.key.escapingControlCharacters.padding(toLength: 24, withPad: " ", startingAt: 0)) \($0.value)\n"
            }.joined()
        }
        var text = "\(stats.books) books; \(stats.booksWithPages) with a page count (\(stats.pages) pages)\n"
        text += "Exclusive shelves:\n" + table(stats.exclusiveShelves, byCount: true)
        if !stats.shelves.isEmpty { text += "Other shelves:\n" + table(stats.shelves, byCount: true) }
        text += "Finished per year (readings, pages):\n"
        for year in stats.finishedPerYear.keys.sorted() {
            text += "  \(year.escapingControlCharacters)  \(stats.finishedPerYear[year]!)  \(stats.pagesPerYear[year] ?? 0)\n"
        }
        text += "Ratings (whole stars):\n"
        let largest = max(1, stats.ratings.values.max() ?? 1)
        for star in (1...5).reversed() {
            let count = stats.ratings[String(star)] ?? 0
            text += "  \(star)★ \(String(repeating: "█", count: (count * 30 + largest - 1) / largest)) \(count)\n"
        }
        return text
    }
}
