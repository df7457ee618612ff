import Foundation
import ShelflineCore
import TestSupport
import TestTraits
import Testing

/// An Open Library reading log (no titles, only keys) through `shelfline run`: its books are looked
/// up by their keys; out of reach or unknown, they are kept with their keys and shelves, not
/// enriched, and a later run with the source answering fills them in, with no second book.
@Suite(.offCooperativePool) struct LookupByKeyEndToEndTests {
    typealias Book = FakeOpenLibraryServer.Book
    static let fox = Book(
        key: "/books/OL7353617M", title: "Fantastic Mr. Fox", authors: ["Roald Dahl"], work: "/works/OL45804W")
    static let witches = Book(key: "/books/OL1000001M", title: "The Witches", authors: ["Roald Dahl"], work: "/works/OL1000001W")

    /// A reading log and the config that asks the Open Library API alone at `port`, with no
    /// retries (a 5xx answer is at once a row no source could answer), and `extra` top-level keys.
    final class KeyedImport {
        let dir = TemporaryDirectory("keys-e2e")
        let csv: String
        let configPath: String
        var workspace: String { dir.file("ws") }

        init(port: Int, extra: [String: Any] = [:]) throws {
            csv = dir.write(
                "reading-log.csv", "Work Id,Edition Id,Bookshelf\nOL45804W,,Want to Read\nOL1000001W,OL1000001M,Already Read\n")
            var config = try ConfigFile(contentsOf: PipelineEndToEndTests.shippedConfig)
            config[stage: "lookup"]?["parameters"] =
                [
                    "sources": ["openlibrary"], "catalog": [] as [String],
                    "openLibrary": [
                        "baseURL": "http://127.0.0.1:\(port)", "requestsPerSecond": 50, "timeoutSeconds": 30, "maxRetries": 0,
                    ],
                ] as [String: Any]
            for (key, value) in extra { config.object[key] = value }
            configPath = try config.write(to: dir.file("pipeline.json"))
        }

        /// `shelfline run` of the reading log (or of `--inbox`), always with the same config.
        func run(_ source: [String]? = nil) throws -> ProcessResult {
            let result = try ExecutableRunner.run(
                "shelfline", ["run"] + (source ?? ["--csv", csv]) + ["--config", configPath, "--workspace", workspace],
                in: dir.path)
            #expect(result.status == 0, "\(result)")
            return result
        }

        /// `shelfline plan` or `shelfline status` for the reading log, with the same config.
        func ask(_ command: String) throws -> ProcessResult {
            try ExecutableRunner.run(
                "shelfline", [command, "--csv", csv, "--config", configPath, "--workspace", workspace], in: dir.path)
        }

        /// The library's books by Open Library work key; each row is one book.
        func books() throws -> [String: [String: Any]] {
            var books: [String: [String: Any]] = [:]
            try GzipReader(path: workspace + "/library/library.ndjson.gz").forEachLine { bytes, _ in
                let book = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:]
                let work = (book["identifiers"] as? [String: String])?["openlibrary-work"] ?? "?"
                #expect(books[work] == nil, "one book per row: \(work) twice")
                books[work] = book
            }
            #expect(books.count == 2, "\(books.keys.sorted())")
            #expect(books["OL45804W"]?["shelf"] as? String == "to-read")
            #expect(books["OL1000001W"]?["shelf"] as? String == "read")
            #expect(
                books["OL1000001W"]?["identifiers"] as? [String: String]
                    == ["openlibrary-work": "OL1000001W", "openlibrary-edition": "OL1000001M"])
            return books
        }
    }

    /// The same export with the same config: rows no source could answer are asked again by the
    /// next run (the cache answering those already filled), and once none is left it is "already
    /// imported" again.
    @Test(.bug(id: 40)) func readingLogBooksOutOfReachAreFilledInByTheNextRunOfTheSameExport() async throws {
        var down: RefusingLoopbackPort? = try RefusingLoopbackPort()
        let port = down!.port
        let keyed = try KeyedImport(port: port)

        // Out of reach: every row imported as it came, nothing enriched.
        let first = try keyed.run()
        #expect(!first.stdout.contains("asking again"), "\(first)")
        let offline = try keyed.books()
        #expect(offline["OL45804W"]?["title"] as? String == "OL45804W")
        #expect(offline["OL1000001W"]?["title"] as? String == "OL1000001W")
        #expect(offline.values.allSatisfy { $0["enrichment"] == nil && $0["author"] == nil })

        // `plan` and `status` say what the next run will do: ask again, so work is pending.
        let plan = try keyed.ask("plan")
        #expect(plan.status == 0, "\(plan)")
        #expect(plan.stdout.contains("lookup: will run: asking again for 2 rows no source could answer last time"), "\(plan)")
        #expect(plan.stdout.contains("merge: "), "\(plan)")
        let status = try keyed.ask("status")
        #expect(status.status == 1, "work pending: \(status)")
        #expect(status.stdout.contains("lookup: will run: asking again for 2 rows"), "\(status)")

        // Still out of reach: asked again, nothing new found, the library byte-identical.
        let library = try Data(contentsOf: URL(fileURLWithPath: keyed.workspace + "/library/library.ndjson.gz"))
        let stillDown = try keyed.run()
        #expect(stillDown.stdout.contains("asking again for 2 rows no source could answer last time"), "\(stillDown)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: keyed.workspace + "/library/library.ndjson.gz")) == library)
        down = nil

        // Reachable, but failing for one of the keys: the other book is filled in.
        let books: [String: Book] = [
            PipelineEndToEndTests.isbn13(body: "978014032872"): Self.fox,
            PipelineEndToEndTests.isbn13(body: "978014032873"): Self.witches,
        ]
        let failing = try await FakeOpenLibraryServer(books: books, port: port)
        failing.fault = { _, request in request.path.contains("OL1000001") ? LoopbackResponse(status: 500) : nil }
        let second = try keyed.run()
        try await failing.shutdown()
        #expect(!second.stdout.hasPrefix("already imported"), "\(second)")
        #expect(second.stdout.contains("asking again for 2 rows no source could answer last time"), "\(second)")
        let some = try keyed.books()
        #expect(some["OL45804W"]?["title"] as? String == "Fantastic Mr. Fox", "\(some["OL45804W"] ?? [:])")
        #expect(some["OL45804W"]?["author"] as? String == "Roald Dahl")
        #expect(some["OL45804W"]?["workKey"] as? String == "/works/OL45804W")
        #expect(some["OL1000001W"]?["title"] as? String == "OL1000001W")

        // Answering both: the other is filled in from its edition; the first from the cache.
        let full = try await FakeOpenLibraryServer(books: books, port: port)
        let third = try keyed.run()
        let asked = Set(full.requests.map(\.path))
        let requestsAfterThird = full.requests.count
        #expect(third.stdout.contains("asking again for 1 row no source could answer last time"), "\(third)")
        let all = try keyed.books()
        #expect(all["OL45804W"]?["title"] as? String == "Fantastic Mr. Fox")
        #expect(all["OL1000001W"]?["title"] as? String == "The Witches", "\(all["OL1000001W"] ?? [:])")
        #expect(all["OL1000001W"]?["editionKey"] as? String == "/books/OL1000001M")
        #expect(all["OL1000001W"]?["isbn13"] as? String == PipelineEndToEndTests.isbn13(body: "978014032873"))
        #expect(
            asked.contains("/books/OL1000001M.json") && !asked.contains("/works/OL45804W.json"),
            "the fox answer came from the cache: \(asked.sorted())")

        // Nothing left to ask: already imported, and the source is not asked.
        let fourth = try keyed.run()
        let requestsAfterFourth = full.requests.count
        try await full.shutdown()
        #expect(fourth.stdout.hasPrefix("already imported; nothing to do"), "\(fourth)")
        #expect(requestsAfterFourth == requestsAfterThird, "\(full.requests.map(\.path))")
        let upToDate = try keyed.ask("status")
        #expect(upToDate.status == 0, "\(upToDate)")
        #expect(!upToDate.stdout.contains("asking again"), "\(upToDate)")
    }

    /// Every row answered, one of them "not known" (a source's no, not a failure): nothing is left
    /// to ask again, and the same export is "already imported" without a request.
    @Test(.bug(id: 40)) func anExportWhoseRowsAllGotAnAnswerIsNotAskedAgain() async throws {
        let server = try await FakeOpenLibraryServer(books: [PipelineEndToEndTests.isbn13(body: "978014032872"): Self.fox])
        let keyed = try KeyedImport(port: server.port)
        let first = try keyed.run()
        let requests = server.requests.count
        let books = try keyed.books()
        #expect(books["OL45804W"]?["title"] as? String == "Fantastic Mr. Fox", "\(first)")
        #expect(books["OL1000001W"]?["title"] as? String == "OL1000001W")
        let again = try keyed.run()
        let requestsAgain = server.requests.count
        try await server.shutdown()
        #expect(again.stdout.hasPrefix("already imported; nothing to do"), "\(again)")
        #expect(requestsAgain == requests, "\(server.requests.map(\.path))")
    }

    /// An inbox file whose import left rows no source could answer is imported again only once its
    /// last attempt is `askAgainAfterMinutes` old (default 60): a scheduled run every few minutes
    /// does not ask an offline source each time; 0 asks on every run.
    @Test(.bug(id: 40), arguments: [nil, 0] as [Int?])
    func anInboxAsksAgainOnlyAfterTheConfiguredInterval(_ minutes: Int?) throws {
        let down = try RefusingLoopbackPort()
        let keyed = try KeyedImport(port: down.port, extra: minutes.map { ["askAgainAfterMinutes": $0] } ?? [:])
        let inbox = keyed.dir.file("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: keyed.csv, toPath: inbox + "/reading-log.csv")
        let arguments = ["--inbox", inbox, "--settle", "0"]
        let first = try keyed.run(arguments)
        #expect(first.stdout.contains("2 not enriched"), "\(first)")
        let second = try keyed.run(arguments)
        if minutes == 0 {
            #expect(second.stdout.contains("asking again for 2 rows no source could answer last time"), "\(second)")
        } else {
            #expect(second.stdout.hasPrefix("inbox \(inbox): nothing new (1 already imported"), "\(second)")
        }
        _ = try keyed.books()
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
