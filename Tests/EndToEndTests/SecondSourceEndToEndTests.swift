import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import TestTraits
import Testing

/// Issue 39: `shelfline run` with `"sources": ["openlibrary", "googlebooks"]`, both loopback fakes.
/// Open Library lacks two of the six books; Google Books has one of them, and for the other only
/// a book with the same title by another author, which must not be taken.
@Suite(.offCooperativePool) struct SecondSourceEndToEndTests {
    struct LookupReportFile: Decodable {
        struct Matches: Decodable, Equatable {
            var byIsbn: Int
            var bySearch: Int
        }
        var matchesBySource: [String: Matches]
        var counts: EnrichmentCounts
    }

    /// The import activity's snapshot, as far as this test reads it.
    struct ActivityFile: Decodable {
        struct State: Decodable { var matchesBySource: [String: Int]? }
        var contentState: State
    }

    @Test(.bug(id: 39)) func booksOpenLibraryLacksComeFromGoogleBooksAndNeverAWrongOne() async throws {
        let dir = TemporaryDirectory("second-source-e2e")
        let csv = dir.write("export.csv", PipelineEndToEndTests.syntheticExport(count: 6))
        // Row n: title "Book n", author "Author n", ISBN as `syntheticExport` writes it.
        func isbn(_ row: Int) -> String { PipelineEndToEndTests.isbn13(body: String(format: "978%09d", 100_000 + row * 7)) }
        var books: [String: FakeOpenLibraryServer.Book] = [:]
        for row in 0..<4 {
            books[isbn(row)] = .init(
                key: "/books/OL\(row)M", title: "Book \(row)", authors: ["Author \(row)"], work: "/works/OL\(row)W")
        }
        let openLibrary = try await FakeOpenLibraryServer(books: books)
        let google = try await FakeGoogleBooksServer(volumes: [
            .init(id: "gbBook4", title: "Book 4", authors: ["Author 4"], isbn13: isbn(4), pageCount: 512),
            .init(id: "gbWrong5", title: "Book 5", authors: ["Somebody Else"], isbn13: isbn(99)),
        ])
        let secret = "AIzaSyE2E-never-shown-0123456789"
        let keyFile = dir.write("google.key", secret + "\n")
        chmod(keyFile, 0o600)
        var config = try ConfigFile(contentsOf: PipelineEndToEndTests.shippedConfig)
        config[stage: "lookup"]?["parameters"] =
            [
                "sources": ["openlibrary", "googlebooks"], "catalog": [] as [String],
                "openLibrary": ["baseURL": openLibrary.baseURL, "requestsPerSecond": 50, "timeoutSeconds": 30],
                "googleBooks": [
                    "baseURL": google.baseURL, "requestsPerSecond": 50, "timeoutSeconds": 30, "apiKeyFile": "google.key",
                ],
            ] as [String: Any]
        let configPath = try config.write(to: dir.file("pipeline.json"))
        let workspace = dir.file("ws")
        let result = try ExecutableRunner.run(
            "shelfline", ["run", "--csv", csv, "--config", configPath, "--workspace", workspace],
            in: dir.path)
        try await openLibrary.shutdown()
        try await google.shutdown()
        #expect(result.status == 0, "\(result)")

        let run = workspace + "/runs/latest"
        let merge = try readJSONFile(MergeReport.self, from: run + "/merge-report.json")
        #expect(merge.enrichment.matchedByIsbn == 5, "\(merge.enrichment)")
        #expect(merge.enrichment.notEnriched == 1, "the same title by another author is not taken")
        #expect(merge.enrichment.isbnBySource == ["openlibrary": 4, "googlebooks": 1])
        #expect(result.stdout.contains("enrichment: 5 by ISBN (openlibrary 4, googlebooks 1), 0 by search,"), "\(result)")
        // The report page and the import Live Activity's end count the matches per source too.
        let page = try String(contentsOfFile: run + "/report.html", encoding: .utf8)
        let sources = try #require(page.components(separatedBy: "<table id=\"sources\">").dropFirst().first)
        #expect(sources.contains("<td>openlibrary</td><td class=\"num\">4</td>"), "\(sources)")
        #expect(sources.contains("<td>googlebooks</td><td class=\"num\">1</td>"), "\(sources)")
        let activity = try readJSONFile(ActivityFile.self, from: workspace + "/activity/import.json")
        #expect(activity.contentState.matchesBySource == ["openlibrary": 4, "googlebooks": 1], "\(activity)")
        let lookup = try readJSONFile(LookupReportFile.self, from: run + "/lookup-report.json")
        #expect(
            lookup.matchesBySource == [
                "openlibrary": .init(byIsbn: 4, bySearch: 0), "googlebooks": .init(byIsbn: 1, bySearch: 0),
            ])
        // Google Books is asked only for the rows Open Library did not match, with the key.
        let asked = google.requests.compactMap { $0.query["q"] }
        #expect(Set(asked) == ["isbn:\(isbn(4))", "isbn:\(isbn(5))", "intitle:Book 5 inauthor:Author 5"], "\(asked)")
        #expect(google.requests.allSatisfy { $0.query["key"] == secret })

        // The library records which source matched and its own id.
        let export = try ExecutableRunner.run(
            "shelfline",
            [
                "export", "--format", "ndjson", "-o", dir.file("library.ndjson"),
                "--workspace", workspace, "--config", configPath, "--quiet",
            ])
        #expect(export.status == 0, "\(export)")
        let lines = try String(contentsOfFile: dir.file("library.ndjson"), encoding: .utf8).split(separator: "\n")
        let book4 = try #require(lines.first { $0.contains("\"Book 4\"") })
        #expect(book4.contains(#""enrichmentSource":"googlebooks""#), "\(book4)")
        #expect(book4.contains(#""editionKey":"gbBook4""#), "\(book4)")
        // Covers come from whichever source has one: Google's thumbnail, asked over https, on the page too.
        let cover = "https://books.google.com/books/content?id=gbBook4&zoom=1"
        #expect(book4.contains(#""coverURL":"\#(cover)""#), "\(book4)")
        let libraryPage = try String(contentsOfFile: workspace + "/library.html", encoding: .utf8)
        #expect(libraryPage.contains("\"\(cover)\""), "the page's cover for the Google Books match")
        #expect(!lines.contains { $0.contains("gbWrong5") })

        // The key is in no message and no file of the run.
        #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret))
        let files = FileManager.default.enumerator(atPath: workspace)?.compactMap { $0 as? String } ?? []
        for file in files where !file.hasSuffix(".gz") && !file.hasSuffix(".sqlite") {
            if let text = try? String(contentsOfFile: workspace + "/" + file, encoding: .utf8) {
                #expect(!text.contains(secret), "\(file)")
            }
        }
    }

    /// A spent quota ends Google Books for the run with one line naming it (and never the key);
    /// the rows go on to Open Library.
    @Test(.bug(id: 39)) func spentQuotaEndsGoogleBooksWithOneLineAndRowsGoOn() async throws {
        let directory = TemporaryDirectory("second-source-quota")
        let books = FakeOpenLibraryServer.numberedBooks(30)
        let records = books.keys.sorted().enumerated().map { index, isbn in
            LookupEndToEndTests.record(index + 2, books[isbn]!.title, "Ann Author", isbn13: isbn)
        }
        try LookupEndToEndTests.writeInput(records, in: directory)
        let openLibrary = try await FakeOpenLibraryServer(books: books)
        let google = try await FakeGoogleBooksServer(volumes: [])
        google.fault = { _, _ in FakeGoogleBooksServer.quotaAnswer(status: 403) }
        let secret = "AIzaSyQUOTA-never-shown-42"
        chmod(directory.write("google.key", secret), 0o600)
        let result = try Self.lookUp(
            in: directory, sources: ["googlebooks", "openlibrary"], google: google, openLibrary: openLibrary,
            googleKeyFile: "google.key")
        try await openLibrary.shutdown()
        try await google.shutdown()
        #expect(result.status == 0, "\(result)")
        let lines = result.stderr.split(separator: "\n").filter { $0.contains("quota") }
        #expect(lines.count == 1, "\(result)")
        #expect(lines.first?.contains("source 'googlebooks'") == true && lines.first?.contains("dailyLimitExceeded") == true)
        #expect(!result.stderr.contains(secret) && !result.stdout.contains(secret))
        #expect(!(try String(contentsOfFile: directory.file("report.json"), encoding: .utf8)).contains(secret))
        #expect(google.requests.count <= 2, "at most the requests in flight when the quota answer came (concurrency 2)")
        let report = try readJSONFile(LookupReportFile.self, from: directory.file("report.json"))
        #expect(report.counts.matchedByIsbn == 30)
        #expect(report.matchesBySource == ["openlibrary": .init(byIsbn: 30, bySearch: 0)])
    }

    /// An ISBN Open Library files under another book (a reused or mistyped ISBN) sends the row on
    /// to Google Books, which has the row's book under it: matched there, not left to review. A
    /// row Google Books lacks keeps Open Library's conflict for a person to decide.
    @Test(.bug(id: 39)) func anISBNOpenLibraryFilesUnderAnotherBookGoesOnToGoogleBooks() async throws {
        let directory = TemporaryDirectory("second-source-conflict")
        let reused = FakeOpenLibraryServer.isbn13(body: "978000000101")
        let other = FakeOpenLibraryServer.isbn13(body: "978000000202")
        try LookupEndToEndTests.writeInput(
            [
                LookupEndToEndTests.record(2, "Die Vermessung der Welt", "Daniel Kehlmann", isbn13: reused),
                LookupEndToEndTests.record(3, "Tyll", "Daniel Kehlmann", isbn13: other),
            ], in: directory)
        let openLibrary = try await FakeOpenLibraryServer(books: [
            reused: .init(key: "/books/OL7M", title: "Cooking for Two", authors: ["Someone Else"], work: "/works/OL7W"),
            other: .init(key: "/books/OL8M", title: "Gardening Basics", authors: ["Another Person"], work: "/works/OL8W"),
        ])
        let google = try await FakeGoogleBooksServer(volumes: [
            .init(id: "gbKehlmann1", title: "Die Vermessung der Welt", authors: ["Daniel Kehlmann"], isbn13: reused)
        ])
        let result = try Self.lookUp(
            in: directory, sources: ["openlibrary", "googlebooks"], google: google, openLibrary: openLibrary)
        try await openLibrary.shutdown()
        try await google.shutdown()
        #expect(result.status == 0, "\(result)")
        let out = try RecordTexts.readRecords(path: directory.file("out.ndjson.gz"))
        let found = try #require(out.first { $0.line == 2 }?.match)
        #expect(found.status == .matchedByIsbn && found.source == "googlebooks" && found.editionKey == "gbKehlmann1", "\(found)")
        let conflict = try #require(out.first { $0.line == 3 }?.match)
        #expect(conflict.status == .needsReview && conflict.reason == "isbnTitleConflict", "\(conflict)")
        #expect(conflict.source == "openlibrary" && conflict.candidates?.first?.key == "/books/OL8M", "\(conflict)")
    }

    /// `shelfline-lookup` on `deduped.ndjson.gz` in `directory`, with both stand-ins in the order
    /// `sources` names them (Google Books with `googleKeyFile` when given).
    static func lookUp(
        in directory: TemporaryDirectory, sources: [String], google: FakeGoogleBooksServer,
        openLibrary: FakeOpenLibraryServer, googleKeyFile: String? = nil
    ) throws -> ProcessResult {
        let key = googleKeyFile.map { #""apiKeyFile": "\#($0)", "# } ?? ""
        let names = sources.map { "\"\($0)\"" }.joined(separator: ", ")
        directory.write(
            "pipeline.json",
            """
            {"stages": [{"name": "lookup", "inputs": [], "outputs": [], "parameters": {"sources": [\(names)],
              "googleBooks": {"baseURL": "\(google.baseURL)", \(key)"requestsPerSecond": 50},
              "openLibrary": {"baseURL": "\(openLibrary.baseURL)", "requestsPerSecond": 50}}}]}
            """)
        return try ExecutableRunner.run(
            "shelfline-lookup",
            ["deduped.ndjson.gz", "-o", "out.ndjson.gz", "--report", "report.json", "--workspace", "ws", "--quiet"],
            in: directory.path)
    }
}
