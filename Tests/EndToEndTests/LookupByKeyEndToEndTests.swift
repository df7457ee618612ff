import Foundation
import ShelflineCore
import TestSupport
import Testing

/// An Open Library reading log (no titles, only keys) through `shelfline run`: its books are looked
/// up by their keys; out of reach or unknown, they are kept with their keys and shelves, not
/// enriched, and a later run with the source answering fills them in, with no second book.
@Suite struct LookupByKeyEndToEndTests {
    typealias Book = FakeOpenLibraryServer.Book
    static let fox = Book(
        key: "/books/OL7353617M", title: "Fantastic Mr. Fox", authors: ["Roald Dahl"], work: "/works/OL45804W")
    static let witches = Book(key: "/books/OL1000001M", title: "The Witches", authors: ["Roald Dahl"], work: "/works/OL1000001W")

    @Test(.bug(id: 40)) func readingLogBooksOutOfReachOrUnknownAreFilledInByALaterRun() async throws {
        let dir = TemporaryDirectory("keys-e2e")
        let csv = dir.write(
            "reading-log.csv", "Work Id,Edition Id,Bookshelf\nOL45804W,,Want to Read\nOL1000001W,OL1000001M,Already Read\n")
        let workspace = dir.file("ws")
        func run(openLibrary baseURL: String) throws -> [String: [String: Any]] {
            var config = try ConfigFile(contentsOf: PipelineEndToEndTests.shippedConfig)
            // A negative answer lives a moment here, so the third run asks for the key again.
            config[stage: "lookup"]?["parameters"] =
                [
                    "sources": ["openlibrary"], "catalog": [] as [String],
                    "openLibrary": [
                        "baseURL": baseURL, "requestsPerSecond": 50, "timeoutSeconds": 30, "negativeCacheDays": 1e-9,
                    ],
                ] as [String: Any]
            let configPath = try config.write(to: dir.file("pipeline.json"))
            let result = try ExecutableRunner.run(
                "shelfline", ["run", "--csv", csv, "--config", configPath, "--workspace", workspace], in: dir.path)
            #expect(result.status == 0, "\(result)")
            var books: [String: [String: Any]] = [:]
            try GzipReader(path: workspace + "/library/library.ndjson.gz").forEachLine { bytes, _ in
                let book = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
                let work = (book["identifiers"] as? [String: String])?["openlibrary-work"] ?? "?"
                #expect(books[work] == nil, "one book per row: \(work) twice")
                books[work] = book
            }
            #expect(books.count == 2, "\(books.keys.sorted())")
            return books
        }
        func expectKept(_ books: [String: [String: Any]]) {
            #expect(books["OL45804W"]?["shelf"] as? String == "to-read")
            #expect(books["OL1000001W"]?["shelf"] as? String == "read")
            #expect(
                books["OL1000001W"]?["identifiers"] as? [String: String]
                    == ["openlibrary-work": "OL1000001W", "openlibrary-edition": "OL1000001M"])
        }

        // Out of reach: every row imported as it came, nothing enriched.
        let down = try RefusingLoopbackPort()
        let offline = try run(openLibrary: down.baseURL)
        expectKept(offline)
        #expect(offline["OL45804W"]?["title"] as? String == "OL45804W")
        #expect(offline["OL1000001W"]?["title"] as? String == "OL1000001W")
        #expect(offline.values.allSatisfy { $0["enrichment"] == nil && $0["author"] == nil })

        // Reachable, but it knows only one of the keys: that book is filled in, the other kept.
        let partial = try await FakeOpenLibraryServer(books: [PipelineEndToEndTests.isbn13(body: "978014032872"): Self.fox])
        let some = try run(openLibrary: partial.baseURL)
        try await partial.shutdown()
        expectKept(some)
        #expect(some["OL45804W"]?["title"] as? String == "Fantastic Mr. Fox", "\(some["OL45804W"] ?? [:])")
        #expect(some["OL45804W"]?["author"] as? String == "Roald Dahl")
        #expect(some["OL45804W"]?["workKey"] as? String == "/works/OL45804W")
        #expect(some["OL1000001W"]?["title"] as? String == "OL1000001W")

        // Answering both: the other is filled in from its edition; the first keeps its title.
        let full = try await FakeOpenLibraryServer(books: [
            PipelineEndToEndTests.isbn13(body: "978014032872"): Self.fox,
            PipelineEndToEndTests.isbn13(body: "978014032873"): Self.witches,
        ])
        let all = try run(openLibrary: full.baseURL)
        let asked = Set(full.requests.map(\.path))
        try await full.shutdown()
        expectKept(all)
        #expect(all["OL45804W"]?["title"] as? String == "Fantastic Mr. Fox")
        #expect(all["OL1000001W"]?["title"] as? String == "The Witches", "\(all["OL1000001W"] ?? [:])")
        #expect(all["OL1000001W"]?["editionKey"] as? String == "/books/OL1000001M")
        #expect(all["OL1000001W"]?["isbn13"] as? String == PipelineEndToEndTests.isbn13(body: "978014032873"))
        #expect(
            asked.contains("/books/OL1000001M.json") && !asked.contains("/works/OL45804W.json"),
            "the fox answer came from the cache")
    }

    /// A source's own cache lifetime is checked like every other range: exit 78 naming the key.
    @Test(
        .bug(id: 39),
        arguments: [
            (#""openLibrary": {"cacheDays": 0}"#, "openLibrary.cacheDays"),
            (#""googleBooks": {"negativeCacheDays": 40000}"#, "googleBooks.negativeCacheDays"),
            (#""isbndb": {"cacheDays": -1}"#, "isbndb.cacheDays"),
        ])
    func sourceCacheDaysOutOfRangeIsAConfigError(_ section: String, _ key: String) throws {
        let directory = TemporaryDirectory("keys-e2e-ttl")
        try LookupEndToEndTests.writeInput(Array(LookupEndToEndTests.exampleRecords.prefix(1)), in: directory)
        directory.write(
            "pipeline.json",
            """
            {"stages": [{"name": "lookup", "inputs": [], "outputs": [], "parameters": {
              "sources": ["openlibrary"], \(section)}}]}
            """)
        let result = try ExecutableRunner.run(
            "shelfline-lookup", ["deduped.ndjson.gz", "-o", "out.ndjson.gz", "--workspace", "ws"], in: directory.path)
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains(key), "\(result)")
    }
}
