import Foundation
import ShelflineCore
import Testing
import TestSupport
@testable import ShelflineLookup

/// Issue 4 §3, §4, §8: the HTTP source against a real server on loopback serving Open
/// Library-shaped answers, with injected latency, 429, 500, malformed bodies, timeouts and drops.
@Suite(.serialized) struct OpenLibrarySourceTests {
    static let dune = LookupFixtures.isbn13("978044117271")

    /// `count` books the fake knows, keyed by ISBN.
    static func books(_ count: Int) -> [String: FakeOpenLibrary.Book] {
        var books: [String: FakeOpenLibrary.Book] = [:]
        for number in 0..<count {
            let isbn = LookupFixtures.isbn13("9781000\(String(format: "%05d", number))")
            books[isbn] = FakeOpenLibrary.Book(key: "/books/OL\(number)M", title: "Book Number \(number)", authors: ["Ann Author"],
                                               work: "/works/OL\(number)W")
        }
        return books
    }

    static func isbnRecords(_ books: [String: FakeOpenLibrary.Book]) -> [BookRecord] {
        books.keys.sorted().enumerated().map { index, isbn in
            LookupFixtures.record(line: index + 2, title: books[isbn]!.title, author: "Ann Author", isbn13: isbn)
        }
    }

    /// Test parameters: fast backoff and a high rate unless `extra` (JSON members) overrides them.
    static func parameters(_ baseURL: String, _ extra: String = "", top: String = "") -> String {
        var openLibrary: [String: Any] = ["baseURL": baseURL, "requestsPerSecond": 100, "backoffBaseSeconds": 0.01,
                                          "backoffMaxSeconds": 0.05, "timeoutSeconds": 2]
        let overrides = try! JSONSerialization.jsonObject(with: Data(("{" + extra.drop { $0 == "," } + "}").utf8)) as! [String: Any]
        openLibrary.merge(overrides) { _, new in new }
        var object: [String: Any] = ["sources": ["openlibrary"], "openLibrary": openLibrary]
        let topOverrides = try! JSONSerialization.jsonObject(with: Data(("{" + top + "}").utf8)) as! [String: Any]
        object.merge(topOverrides) { _, new in new }
        return String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    struct Run {
        var report: LookupReport
        var records: [BookRecord]
    }

    static func run(_ records: [BookRecord], parameters: String, in directory: TemporaryDirectory,
                    now: Date = Date(timeIntervalSince1970: 1_790_000_000)) async throws -> Run {
        try LookupFixtures.writeRecords(records, to: directory.file("in.ndjson.gz"))
        let stage = LookupStage(options: LookupStage.Options(
            input: directory.file("in.ndjson.gz"), output: directory.file("out.ndjson.gz"),
            report: directory.file("report.json"), progress: directory.file("progress.json"),
            workspace: Workspace(root: directory.file("ws"))))
        let report = try await stage.run(context: LookupFixtures.context(parameters, directory: directory.path, now: now))
        return Run(report: report, records: try LookupFixtures.readRecords(directory.file("out.ndjson.gz")))
    }

    @Test func issue4_batchesManyISBNsPerRequestWithAnIdentifyingUserAgent() async throws {
        let books = Self.books(120)
        let fake = FakeOpenLibrary(books: books)
        let server = try await LoopbackHTTPServer { fake.handle($0) }
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-ol")
        let run = try await Self.run(Self.isbnRecords(books), parameters: Self.parameters(server.baseURL, #", "batchSize": 50"#),
                                     in: directory)
        #expect(run.records.count == 120)
        #expect(run.records.allSatisfy { $0.match?.status == .matchedByIsbn && $0.match?.source == "openlibrary" })
        #expect(run.records.first?.metadata?.coverId == 123)
        #expect(run.records.first?.metadata?.authors == ["Ann Author"])
        let requests = server.requests
        #expect(requests.count == 3, "120 ISBNs in batches of 50")
        #expect(requests.allSatisfy { $0.path == "/api/books" && $0.query["jscmd"] == "details" && $0.query["format"] == "json" })
        #expect(requests.allSatisfy { $0.headers["user-agent"]?.hasPrefix("Shelfline/0.1 (") == true })
        #expect(run.report.requests == 3)
        #expect(run.report.counts.total == run.report.recordsRead)
    }

    /// Issue 14 §3: a batch answer carries the work key, so editions of one work are one book
    /// whichever source found them.
    @Test func issue14_isbnAnswerNamesItsWork() async throws {
        let books = Self.books(3)
        let fake = FakeOpenLibrary(books: books)
        let server = try await LoopbackHTTPServer { fake.handle($0) }
        defer { Task { try? await server.shutdown() } }
        let run = try await Self.run(Self.isbnRecords(books), parameters: Self.parameters(server.baseURL),
                                     in: TemporaryDirectory("lookup-ol-work"))
        #expect(run.records.count == 3)
        for record in run.records {
            #expect(record.match?.status == .matchedByIsbn)
            #expect(record.match?.workKey == books[record.isbn13 ?? ""]?.work, "\(record.title)")
            #expect(record.metadata?.publishers == ["Ace"])
        }
        // The `data` shape (no work) still decodes.
        let data = #"{"ISBN:1": {"key": "/books/OL1M", "title": "T", "authors": [{"name": "A"}], "publishers": [{"name": "P"}]}}"#
        let decoded = try OpenLibrarySource.decodeBooks(Data(data.utf8))
        #expect(decoded["ISBN:1"]?.title == "T" && decoded["ISBN:1"]?.workKey == nil && decoded["ISBN:1"]?.publishers == ["P"])
    }

    enum Fault: String, CaseIterable, Sendable {
        case rateLimited, serverError, malformedJSON, droppedConnection, timeout, latency

        func response() -> LoopbackResponse {
            switch self {
            case .rateLimited: .json(status: 429, "{\"error\": \"too many requests\"}")
            case .serverError: .json(status: 500, "oops")
            case .malformedJSON: .json("{\"ISBN:97810000")
            case .droppedConnection: .drop
            case .timeout: .json("{}", delay: .milliseconds(1500))
            case .latency: .json("{}", delay: .milliseconds(50))
            }
        }
    }

    /// Every request's first attempt fails; the retry succeeds. Nothing is lost, retries are bounded.
    @Test(arguments: Fault.allCases)
    func issue4_faultsAreRetriedAndEveryRowFinishes(_ fault: Fault) async throws {
        let books = Self.books(30)
        let fake = FakeOpenLibrary(books: books)
        let seen = SeenURIs()
        fake.fault = { _, request in
            if fault == .latency { return nil }
            return seen.firstTime(request.uri) ? fault.response() : nil
        }
        if fault == .latency { fake.latency = .milliseconds(100) }
        let server = try await LoopbackHTTPServer { fake.handle($0) }
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-ol")
        var records = Self.isbnRecords(books)
        records.append(LookupFixtures.record(line: 100, title: "Book Number 7", author: "Ann Author"))
        records.append(LookupFixtures.record(line: 101, title: "Unknown To Everyone", author: "Nobody"))
        let run = try await Self.run(records, parameters: Self.parameters(
            server.baseURL, #", "batchSize": 10, "timeoutSeconds": 0.5, "maxRetries": 3, "breakerThreshold": 50"#), in: directory)
        #expect(run.records.count == records.count, "no row lost")
        #expect(run.records.map(\.line) == records.map(\.line), "input order kept")
        #expect(run.records.filter { $0.match?.status == .matchedByIsbn }.count == 30, "\(fault)")
        #expect(run.records.first { $0.line == 100 }?.match?.status == .matchedBySearch)
        #expect(run.records.first { $0.line == 101 }?.match?.reason == "no candidate")
        #expect(run.report.counts.total == run.report.recordsRead)
        let distinct = Set(server.requests.map(\.uri)).count
        #expect(distinct == 5, "3 ISBN batches and 2 searches")
        if fault == .latency {
            #expect(run.report.retries == 0)
        } else {
            // curl may itself resend on a kept-alive connection the server dropped: then no retry of ours.
            if fault == .droppedConnection {
                #expect(run.report.retries <= distinct)
            } else {
                #expect(run.report.retries == distinct, "exactly one retry per request")
            }
            #expect(server.requests.count == 2 * distinct)
        }
        if fault == .rateLimited { #expect(run.report.rateLimited == distinct) }
    }

    @Test func issue4_malformedAnswersEndAsNotEnrichedAfterBoundedRetries() async throws {
        let server = try await LoopbackHTTPServer { _ in .html("<html>maintenance</html>") }
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-ol")
        let records = [LookupFixtures.record(line: 2, title: "Dune", author: "Frank Herbert", isbn13: Self.dune)]
        let run = try await Self.run(records, parameters: Self.parameters(server.baseURL, #", "maxRetries": 2, "breakerThreshold": 50"#),
                                     in: directory)
        #expect(run.records.map { $0.match?.status } == [.notEnriched])
        #expect(run.records[0].match?.reason?.hasPrefix("lookup failed: malformed response") == true)
        #expect(server.requests.count == 6, "ISBN request and search, 3 attempts each")
        #expect(run.report.retries == 4)
    }

    @Test func issue4_waitBudgetStopsRetriesWhenUsedUp() async throws {
        let server = try await LoopbackHTTPServer { _ in .json(status: 500, "down") }
        defer { Task { try? await server.shutdown() } }
        var parameters = OpenLibraryParameters()
        parameters.baseURL = server.baseURL
        parameters.requestsPerSecond = 100
        parameters.maxRetries = 10
        parameters.breakerThreshold = 100
        parameters.backoffBaseSeconds = 0.2
        parameters.waitBudgetSeconds = 0.5
        let source = try OpenLibrarySource(parameters: parameters)
        do {
            _ = try await source.editions(isbns: [Self.dune])
            Issue.record("expected a failure")
        } catch let failure as SourceFailure {
            guard case .failed(_, let reason) = failure else { Issue.record("\(failure)"); return }
            #expect(reason.contains("wait budget"))
        }
        let counters = await source.client.snapshot()
        #expect(counters.backoffSeconds <= 0.5)
        #expect(counters.requests < 11, "gave up before maxRetries")
        #expect(counters.requests == counters.retries + 1)
    }

    @Test func issue4_serverSeesNoMoreRequestsPerSecondThanConfigured() async throws {
        let fake = FakeOpenLibrary(books: [:])
        fake.latency = .milliseconds(20)
        let server = try await LoopbackHTTPServer { fake.handle($0) }
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-ol")
        let records = (0..<24).map { LookupFixtures.record(line: $0 + 2, title: "Distinct Title \($0)", author: "Someone") }
        let run = try await Self.run(records, parameters: Self.parameters(
            server.baseURL, #", "requestsPerSecond": 8, "concurrency": 5"#), in: directory)
        #expect(server.requests.count == 24)
        #expect(maxRequestsPerSecond(server.requests) <= 8)
        #expect(run.records.allSatisfy { $0.match?.status == .notEnriched && $0.match?.reason == "no candidate" })
    }

    @Test func issue4_circuitBreakerTripsThenRecoversAfterCooldown() async throws {
        let healthy = Toggle()
        let fake = FakeOpenLibrary(books: Self.books(3))
        fake.fault = { _, _ in healthy.isOn ? nil : .json(status: 503, "down") }
        let server = try await LoopbackHTTPServer { fake.handle($0) }
        defer { Task { try? await server.shutdown() } }
        var parameters = OpenLibraryParameters()
        parameters.baseURL = server.baseURL
        parameters.requestsPerSecond = 100
        parameters.backoffBaseSeconds = 0.01
        parameters.maxRetries = 1
        parameters.breakerThreshold = 3
        parameters.breakerCooldownSeconds = 0.3
        let source = try OpenLibrarySource(parameters: parameters)
        let isbns = Self.books(3).keys.sorted()
        // Failing: 2 attempts, then 1 more attempt trips the breaker (3 in a row).
        for isbn in isbns.prefix(2) {
            await #expect(throws: SourceFailure.self) { try await source.editions(isbns: [isbn]) }
        }
        #expect(server.requests.count == 3)
        // Open: fails fast, without calling the server.
        await #expect(throws: SourceFailure.unavailable(source: "openlibrary")) { try await source.editions(isbns: [isbns[2]]) }
        #expect(server.requests.count == 3)
        #expect(await source.client.snapshot().breakerTrips == 1)
        // Server back; after the cooldown one probe goes through and closes the breaker.
        healthy.isOn = true
        try await Task.sleep(nanoseconds: 400_000_000)
        let found = try await source.editions(isbns: [isbns[2]])
        #expect(found.count == 1)
        #expect(try await source.editions(isbns: [isbns[0]]).count == 1)
        #expect(await source.client.breaker.state == .closed)
    }

    @Test func issue4_unreachableSourceMarksRowsSourceUnavailableWithoutHanging() async throws {
        let server = try await LoopbackHTTPServer { _ in .json(status: 500, "down") }
        let baseURL = server.baseURL
        try await server.shutdown()  // nothing listens there now: connection refused
        let directory = TemporaryDirectory("lookup-ol")
        let records = (0..<40).map {
            LookupFixtures.record(line: $0 + 2, title: "Title \($0)", author: "A", isbn13: $0 % 2 == 0 ? Self.dune : nil)
        }
        let started = Date()
        let run = try await Self.run(records, parameters: Self.parameters(
            baseURL, #", "breakerThreshold": 4, "breakerCooldownSeconds": 60, "maxRetries": 2"#), in: directory)
        #expect(Date().timeIntervalSince(started) < 10)
        #expect(run.records.count == 40)
        #expect(run.records.allSatisfy { $0.match?.status == .notEnriched })
        #expect(run.report.notEnrichedReasons["source unavailable", default: 0] >= 35)
        #expect(run.report.breakerTrips == 1)
        #expect(run.report.requests <= 4 + 5, "threshold plus what was already in flight (concurrency 5)")
    }

    @Test func issue4_repeatedRunRepeatsNoFinishedLookup() async throws {
        let books = Self.books(5)
        let fake = FakeOpenLibrary(books: books)
        let server = try await LoopbackHTTPServer { fake.handle($0) }
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-ol")
        var records = Self.isbnRecords(books)
        records.append(LookupFixtures.record(line: 50, title: "Not Known", author: "X", isbn13: LookupFixtures.isbn13("978999999999")))
        records.append(LookupFixtures.record(line: 51, title: "Book Number 3", author: "Ann Author"))
        let parameters = Self.parameters(server.baseURL, #", "batchSize": 2"#)
        let day = Date(timeIntervalSince1970: 1_790_000_000)
        let first = try await Self.run(records, parameters: parameters, in: directory, now: day)
        let afterFirst = server.requests.count
        #expect(afterFirst > 0)
        let second = try await Self.run(records, parameters: parameters, in: directory, now: day + 3600)
        #expect(server.requests.count == afterFirst, "second run makes zero HTTP requests")
        #expect(second.report.requests == 0)
        #expect(second.report.cacheHits > 0)
        #expect(second.records.map(\.match) == first.records.map(\.match))
        // Four days later the negative answers (unknown ISBN; 'Not Known' search) have expired, the rest have not.
        _ = try await Self.run(records, parameters: parameters, in: directory, now: day + 4 * 86_400)
        let asked = server.requests.dropFirst(afterFirst)
        #expect(asked.count == 2)
        #expect(asked.contains { $0.query["bibkeys"] == "ISBN:\(LookupFixtures.isbn13("978999999999"))" })
        #expect(asked.contains { $0.path == "/search.json" && $0.query["title"] == "Not Known" })
    }

    @Test func issue4_duplicateRowsReuseTheFirstRowsAnswer() async throws {
        let fake = FakeOpenLibrary(books: Self.books(1))
        let server = try await LoopbackHTTPServer { fake.handle($0) }
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-ol")
        let records = [
            LookupFixtures.record(line: 2, title: "Book Number 0", author: "Ann Author", dedupe: DedupeMark(status: .new, key: "k")),
            LookupFixtures.record(line: 3, title: "Book Number 0", author: "Ann Author",
                                  dedupe: DedupeMark(status: .duplicateInFile, key: "k", firstLine: 2)),
            LookupFixtures.record(line: 4, title: "Book Number 0", author: "Ann Author",
                                  dedupe: DedupeMark(status: .duplicateInFile, key: "k", firstLine: 2)),
        ]
        let run = try await Self.run(records, parameters: Self.parameters(server.baseURL, top: #""chunkSize": 2"#), in: directory)
        #expect(server.requests.count == 1)
        #expect(run.report.duplicatesReused == 2)
        #expect(Set(run.records.map { $0.match?.status }) == [.matchedBySearch])
        #expect(Set(run.records.map { $0.match?.workKey }) == ["/works/OL0W"])
    }

    @Test func issue4_sourcesAreChainedInOrder() async throws {
        let onlineOnly = LookupFixtures.isbn13("978100000000")
        let fake = FakeOpenLibrary(books: [onlineOnly: FakeOpenLibrary.Book(key: "/books/OLX1M", title: "Online Only",
                                                                            authors: ["Web Writer"], work: "/works/OLX1W")])
        let server = try await LoopbackHTTPServer { fake.handle($0) }
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-ol")
        let catalog = LookupFixtures.sampleCatalog.map { "\"\($0)\"" }.joined(separator: ",")
        let parameters = Self.parameters(server.baseURL, top: #""sources": ["catalog", "openlibrary"], "catalog": ["# + catalog + "]")
        let records = [
            LookupFixtures.record(line: 2, title: "Dune", author: "Frank Herbert", isbn13: "9780441172719"),
            LookupFixtures.record(line: 3, title: "Online Only", author: "Web Writer", isbn13: onlineOnly),
            LookupFixtures.record(line: 4, title: "The Dispossessed", author: "Ursula K. Le Guin"),
        ]
        let run = try await Self.run(records, parameters: parameters, in: directory)
        #expect(run.records.map { $0.match?.status } == [.matchedByIsbn, .matchedByIsbn, .matchedBySearch])
        #expect(run.records.map { $0.match?.source } == ["catalog", "openlibrary", "catalog"])
        #expect(server.requests.count == 1, "only the ISBN the catalog lacks goes out")
        #expect(server.requests.first?.query["bibkeys"] == "ISBN:\(onlineOnly)")
    }

    @Test func issue4_stopSignalPausesWithinFiveSecondsAndKeepsTheCache() async throws {
        let fake = FakeOpenLibrary(books: Self.books(200))
        fake.latency = .milliseconds(300)
        let server = try await LoopbackHTTPServer { fake.handle($0) }
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-ol")
        try LookupFixtures.writeRecords(Self.isbnRecords(Self.books(200)), to: directory.file("in.ndjson.gz"))
        let flag = CancellationFlag()
        let stage = LookupStage(options: LookupStage.Options(
            input: directory.file("in.ndjson.gz"), output: directory.file("out.ndjson.gz"),
            progress: directory.file("progress.json"), workspace: Workspace(root: directory.file("ws"))))
        let context = try LookupFixtures.context(Self.parameters(
            server.baseURL, #", "batchSize": 1, "requestsPerSecond": 20, "concurrency": 2"#, top: #""chunkSize": 50"#),
            directory: directory.path, cancellation: flag)
        Task {
            try await Task.sleep(nanoseconds: 1_500_000_000)
            flag.cancel()
        }
        let started = Date()
        await #expect(throws: TryLaterError.self) { try await stage.run(context: context) }
        #expect(Date().timeIntervalSince(started) < 1.5 + 5)
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.ndjson.gz")), "no partial output")
        let progress = try readJSONFile(StageProgress.self, from: directory.file("progress.json"))
        #expect(!progress.finished)
        // Answers received before the stop are in the cache: a resumed run does not ask for them again.
        fake.latency = nil
        let before = server.requests.count
        let resumed = try await Self.run(Self.isbnRecords(Self.books(200)), parameters: Self.parameters(
            server.baseURL, #", "batchSize": 1, "requestsPerSecond": 200, "concurrency": 5"#), in: directory)
        #expect(resumed.report.cacheHits > 0)
        #expect(server.requests.count - before + resumed.report.cacheHits == 200)
    }
}

final class SeenURIs: @unchecked Sendable {
    private let lock = NSLock()
    private var seen = Set<String>()
    func firstTime(_ uri: String) -> Bool { lock.withLock { seen.insert(uri).inserted } }
}

final class Toggle: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isOn: Bool {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
