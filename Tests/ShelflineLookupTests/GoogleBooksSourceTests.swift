import Clocks
import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLookup

/// Issue 39: Google Books as a second metadata source, against a loopback server serving the
/// documented answer shapes: found, absent, quota spent, 5xx, huge, malformed, a wrong book with
/// the same title.
@Suite struct GoogleBooksSourceTests {
    typealias Volume = FakeGoogleBooksServer.Volume
    static let schwarm = LookupFixtures.isbn13("978345358200")
    static let schwarmVolume = Volume(
        id: "gbSchwarm1", title: "Der Schwarm", authors: ["Frank Schätzing"], isbn13: schwarm,
        publisher: "Fischer", publishedDate: "2004-08", pageCount: 992)

    /// Lookup parameters naming `sources`, Google Books at `baseURL` (fast, no retries wait) and
    /// Open Library at `openLibrary` when given; `googleBooks` adds members to its section.
    static func parameters(
        _ baseURL: String, sources: [String] = ["googlebooks"], openLibrary: String? = nil,
        googleBooks: [String: Any] = [:]
    ) -> String {
        var section: [String: Any] = ["baseURL": baseURL, "requestsPerSecond": 50, "timeoutSeconds": 5]
        section.merge(googleBooks) { _, new in new }
        var object: [String: Any] = ["sources": sources, "googleBooks": section]
        if let openLibrary {
            object["openLibrary"] = [
                "baseURL": openLibrary, "requestsPerSecond": 100, "backoffBaseSeconds": 0.01,
                "backoffMaxSeconds": 0.05, "timeoutSeconds": 5,
            ]
        }
        return String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    static func run(_ records: [BookRecord], parameters: String, in directory: TemporaryDirectory) async throws
        -> OpenLibrarySourceTests.Run
    {
        try await OpenLibrarySourceTests.run(records, parameters: parameters, in: directory)
    }

    @Test(.bug(id: 39)) func foundByISBNFillsTheEditionFromTheVolume() async throws {
        let server = try await FakeGoogleBooksServer(volumes: [Self.schwarmVolume])
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-gb")
        let records = [LookupFixtures.record(line: 2, title: "Der Schwarm", author: "Frank Schätzing", isbn13: Self.schwarm)]
        let run = try await Self.run(records, parameters: Self.parameters(server.baseURL), in: directory)
        let match = try #require(run.records.first?.match)
        #expect(match.status == .matchedByIsbn)
        #expect(match.source == "googlebooks")
        #expect(match.editionKey == "gbSchwarm1", "the volume id is the source's own key")
        let metadata = try #require(run.records.first?.metadata)
        #expect(metadata.source == "googlebooks")
        #expect(metadata.pages == 992 && metadata.year == 2004 && metadata.publishers == ["Fischer"])
        #expect(metadata.isbn13 == Self.schwarm)
        let request = try #require(server.requests.first)
        #expect(request.path == "/books/v1/volumes")
        #expect(request.query["q"] == "isbn:\(Self.schwarm)")
        #expect(Int(request.query["maxResults"] ?? "") ?? 99 <= 40)
        #expect(request.query["key"] == nil, "no key configured, none sent")
        #expect(run.report.matchesBySource["googlebooks"]?.byIsbn == 1)
    }

    @Test(.bug(id: 39)) func titleSearchAsksInTitleAndInAuthorWithAtMostFortyResults() async throws {
        let server = try await FakeGoogleBooksServer(volumes: [Self.schwarmVolume])
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-gb")
        let records = [LookupFixtures.record(line: 2, title: "Der Schwarm", author: "Frank Schätzing")]
        let run = try await Self.run(
            records,
            parameters: Self.parameters(server.baseURL).replacingOccurrences(
                of: #""sources""#, with: #""searchLimit": 100, "sources""#), in: directory)
        #expect(run.records.first?.match?.status == .matchedBySearch)
        #expect(run.records.first?.match?.editionKey == "gbSchwarm1")
        let request = try #require(server.requests.first)
        #expect(request.query["q"] == "intitle:Der Schwarm inauthor:Frank Schätzing")
        #expect(request.query["maxResults"] == "40", "searchLimit 100 is capped at the API's 40")
        #expect(run.report.matchesBySource["googlebooks"]?.bySearch == 1)
    }

    @Test(.bug(id: 39)) func absentBookIsNoCandidate() async throws {
        let server = try await FakeGoogleBooksServer(volumes: [])
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-gb")
        let records = [LookupFixtures.record(line: 2, title: "Der Schwarm", author: "Frank Schätzing", isbn13: Self.schwarm)]
        let run = try await Self.run(records, parameters: Self.parameters(server.baseURL), in: directory)
        #expect(run.records.first?.match?.status == .notEnriched)
        #expect(run.records.first?.match?.reason == "no candidate")
        #expect(server.requests.count == 2, "the ISBN, then the title and author")
        #expect(run.report.retries == 0)
    }

    /// A volume found by `isbn:` that does not carry the ISBN asked for is not an ISBN match.
    @Test(.bug(id: 39)) func isbnAnswerWithoutTheISBNAskedForIsNoMatch() async throws {
        var other = Self.schwarmVolume
        other.isbn13 = LookupFixtures.isbn13("978345358201")
        let otherISBN = other.isbn13!
        let server = try await FakeGoogleBooksServer(volumes: [other])
        defer { Task { try? await server.shutdown() } }
        server.fault = { _, request in
            // The real search also returns near volumes: answer the ISBN query with the other one.
            request.query["q"]?.hasPrefix("isbn:") == true
                ? .json(
                    #"{"kind": "books#volumes", "totalItems": 1, "items": [{"id": "x", "volumeInfo": {"title": "Der Schwarm", "#
                        + #""authors": ["Frank Schätzing"], "industryIdentifiers": [{"type": "ISBN_13", "identifier": "\#(otherISBN)"}]}}]}"#
                )
                : nil
        }
        let directory = TemporaryDirectory("lookup-gb")
        let records = [LookupFixtures.record(line: 2, title: "Der Schwarm", author: "Frank Schätzing", isbn13: Self.schwarm)]
        let run = try await Self.run(records, parameters: Self.parameters(server.baseURL), in: directory)
        #expect(run.records.first?.match?.status == .matchedBySearch, "found by its title and author, not by the ISBN")
    }

    /// The same title by another author (and a sequel) must not be taken: every source's
    /// candidates pass the same matcher.
    @Test(.bug(id: 39)) func wrongBookWithTheSameTitleIsNotMatched() async throws {
        let server = try await FakeGoogleBooksServer(volumes: [
            Volume(id: "gbOther", title: "Der Schwarm", authors: ["Heinz Müller"], isbn13: LookupFixtures.isbn13("978300000001")),
            Volume(
                id: "gbSequel", title: "Der Schwarm 2", authors: ["Frank Schätzing"],
                isbn13: LookupFixtures.isbn13("978300000002")),
        ])
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-gb")
        let records = [LookupFixtures.record(line: 2, title: "Der Schwarm", author: "Frank Schätzing", isbn13: Self.schwarm)]
        let run = try await Self.run(records, parameters: Self.parameters(server.baseURL), in: directory)
        let match = try #require(run.records.first?.match)
        #expect(match.status != .matchedBySearch && match.status != .matchedByIsbn)
        #expect(run.records.first?.metadata == nil)
        #expect(run.report.matchesBySource.isEmpty)
    }

    /// 403 (daily limit) and 429 (rate limit) end the source for the run: one request, no retry,
    /// the rows go on to the next source, nothing cached.
    @Test(.bug(id: 39), arguments: [403, 429])
    func quotaAnswerEndsTheSourceAndRowsGoOnToTheNext(_ status: Int) async throws {
        let google = try await FakeGoogleBooksServer(volumes: [Self.schwarmVolume])
        defer { Task { try? await google.shutdown() } }
        google.fault = { _, _ in FakeGoogleBooksServer.quotaAnswer(status: status) }
        let books = FakeOpenLibraryServer.numberedBooks(5)
        let openLibrary = try await FakeOpenLibraryServer(books: books)
        defer { Task { try? await openLibrary.shutdown() } }
        let directory = TemporaryDirectory("lookup-gb")
        let records = books.keys.sorted().enumerated().map { index, isbn in
            LookupFixtures.record(line: index + 2, title: books[isbn]!.title, author: "Ann Author", isbn13: isbn)
        }
        let parameters = Self.parameters(
            google.baseURL, sources: ["googlebooks", "openlibrary"], openLibrary: openLibrary.baseURL,
            googleBooks: ["concurrency": 1])
        let run = try await Self.run(records, parameters: parameters, in: directory)
        #expect(google.requests.count == 1, "the first quota answer ends the source: no retry, no other row asks it")
        #expect(run.records.allSatisfy { $0.match?.status == .matchedByIsbn && $0.match?.source == "openlibrary" })
        let counters = try #require(run.report.http["googlebooks"])
        #expect(
            counters.quotaSpent?.contains("HTTP \(status) \(status == 403 ? "dailyLimitExceeded" : "rateLimitExceeded")") == true)
        #expect(counters.retries == 0)

        // Alone, the rows end not enriched with the reason, and the next run asks again.
        let alone = TemporaryDirectory("lookup-gb")
        let second = try await Self.run(records, parameters: Self.parameters(google.baseURL), in: alone)
        #expect(second.records.allSatisfy { $0.match?.reason == "googlebooks quota spent" })
        google.fault = { _, _ in nil }
        let third = try await Self.run(records, parameters: Self.parameters(google.baseURL), in: alone)
        #expect(third.report.cacheHits == 0, "a quota answer is not cached")
    }

    @Test(.bug(id: 39)) func serverErrorsAreRetried() async throws {
        let server = try await FakeGoogleBooksServer(volumes: [Self.schwarmVolume])
        defer { Task { try? await server.shutdown() } }
        server.fault = { number, _ in number == 1 ? .json(status: 503, "unavailable") : nil }
        let directory = TemporaryDirectory("lookup-gb")
        let records = [LookupFixtures.record(line: 2, title: "Der Schwarm", author: "Frank Schätzing", isbn13: Self.schwarm)]
        let run = try await Self.run(records, parameters: Self.parameters(server.baseURL), in: directory)
        #expect(run.records.first?.match?.status == .matchedByIsbn)
        #expect(run.report.http["googlebooks"]?.serverErrors == 1)
        #expect(run.report.retries == 1)
    }

    /// A `Retry-After` is waited out on the injected clock before the retry, longer than the backoff.
    @Test(.bug(id: 39)) func retryAfterIsWaitedOutOnTheClock() async throws {
        let server = try await FakeGoogleBooksServer(volumes: [Self.schwarmVolume])
        defer { Task { try? await server.shutdown() } }
        let busy = LoopbackResponse(status: 503, headers: [("Retry-After", "7")], body: Array("busy".utf8))
        server.fault = { number, _ in number == 1 ? busy : nil }
        let directory = TemporaryDirectory("lookup-gb")
        let records = [LookupFixtures.record(line: 2, title: "Der Schwarm", author: "Frank Schätzing", isbn13: Self.schwarm)]
        let clock = ImmediateClock()
        let run = try await OpenLibrarySourceTests.run(
            records, parameters: Self.parameters(server.baseURL), in: directory, clock: PacingClock(clock))
        #expect(run.records.first?.match?.status == .matchedByIsbn)
        #expect(run.report.retries == 1)
        #expect(run.report.http["googlebooks"]?.backoffSeconds ?? 0 >= 7)
        #expect(clock.elapsed >= .seconds(7), "waited on the clock, not in real time")
    }

    @Test(.bug(id: 39)) func hugeAnswerIsCutOffAndTheRowIsNotEnriched() async throws {
        let server = try await FakeGoogleBooksServer(volumes: [])
        defer { Task { try? await server.shutdown() } }
        let huge = #"{"kind": "books#volumes", "totalItems": 0, "padding": ""# + String(repeating: "x", count: 100_000) + #""}"#
        server.fault = { _, _ in .json(huge) }
        let directory = TemporaryDirectory("lookup-gb")
        let records = [LookupFixtures.record(line: 2, title: "Der Schwarm", author: "Frank Schätzing", isbn13: Self.schwarm)]
        let run = try await Self.run(
            records,
            parameters: Self.parameters(
                server.baseURL, googleBooks: ["maxResponseBytes": 4096, "maxRetries": 1]), in: directory)
        #expect(run.records.first?.match?.status == .notEnriched)
        #expect(run.records.first?.match?.reason?.contains("longer than 4096 bytes") == true)
        #expect(run.report.http["googlebooks"]?.oversizedResponses == 4, "two requests, two attempts each")
    }

    @Test(.bug(id: 39)) func malformedAnswerIsRetriedThenNotEnriched() async throws {
        let server = try await FakeGoogleBooksServer(volumes: [Self.schwarmVolume])
        defer { Task { try? await server.shutdown() } }
        server.fault = { _, _ in .html("<html>Service temporarily unavailable</html>") }
        let directory = TemporaryDirectory("lookup-gb")
        let records = [LookupFixtures.record(line: 2, title: "Der Schwarm", author: "Frank Schätzing", isbn13: Self.schwarm)]
        let run = try await Self.run(
            records, parameters: Self.parameters(server.baseURL, googleBooks: ["maxRetries": 1]),
            in: directory)
        #expect(run.records.first?.match?.status == .notEnriched)
        #expect(run.records.first?.match?.reason?.hasPrefix("lookup failed: malformed response") == true)
        #expect(run.report.http["googlebooks"]?.malformedResponses == 4)
    }

    @Test(.bug(id: 39)) func apiKeyFromAnOwnerOnlyFileIsSentAndNeverShown() async throws {
        let server = try await FakeGoogleBooksServer(volumes: [Self.schwarmVolume])
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-gb")
        let secret = "AIzaSyTEST-secret-key_123"
        let keyFile = directory.file("google.key")
        try (secret + "\n").write(toFile: keyFile, atomically: true, encoding: .utf8)
        chmod(keyFile, 0o600)
        let records = [LookupFixtures.record(line: 2, title: "Der Schwarm", author: "Frank Schätzing", isbn13: Self.schwarm)]
        let run = try await Self.run(
            records, parameters: Self.parameters(server.baseURL, googleBooks: ["apiKeyFile": "google.key"]),
            in: directory)
        #expect(run.records.first?.match?.status == .matchedByIsbn)
        #expect(server.requests.first?.query["key"] == secret, "relative to pipeline.json, sent as key=")

        chmod(keyFile, 0o644)
        do {
            _ = try await Self.run(
                records, parameters: Self.parameters(server.baseURL, googleBooks: ["apiKeyFile": "google.key"]),
                in: directory)
            Issue.record("a key file others may read was accepted")
        } catch let error as LookupError {
            #expect(error.exitStatus == .config)
            #expect(error.description.contains("chmod 600"))
            #expect(!error.description.contains(secret))
        }
    }

    @Test(.bug(id: 39)) func plainHTTPIsRefusedExceptOnLoopback() throws {
        for (url, allowed) in [
            ("http://books.example.com", false), ("https://www.googleapis.com", true), ("http://127.0.0.1:9", true),
        ] {
            let parameters = Self.parameters(url)
            let value = try ConfigDecoder().decode(
                LookupParameters.self, from: JSONDecoder().decode(JSONValue.self, from: Data(parameters.utf8)))
            if allowed {
                try value.validate(configPath: "p.json")
            } else {
                #expect(throws: LookupError.self) { try value.validate(configPath: "p.json") }
            }
        }
    }

    /// Each setting has a documented range; outside it the stage stops with exit 78 naming the key.
    @Test(
        .bug(id: 39),
        arguments: [
            ("requestsPerSecond", 0.0), ("concurrency", 0), ("concurrency", 17), ("timeoutSeconds", 0), ("maxRetries", 11),
            ("maxResponseBytes", 100),
        ] as [(String, Double)])
    func settingsOutsideTheirRangeAreConfigErrors(_ key: String, _ value: Double) async throws {
        let directory = TemporaryDirectory("lookup-gb")
        let records = [LookupFixtures.record(line: 2, title: "Der Schwarm")]
        do {
            _ = try await Self.run(
                records, parameters: Self.parameters("https://www.googleapis.com", googleBooks: [key: value]),
                in: directory)
            Issue.record("googleBooks.\(key) = \(value) was accepted")
        } catch let error as any ShelflineError {
            #expect(error.exitStatus == .config)
            #expect("\(error)".contains("googleBooks.\(key)"))
        }
    }
}
