import Clocks
import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLookup

/// Issue 4 §3, §4, §8: the HTTP source against a real server on loopback serving Open
/// Library-shaped answers, with injected latency, 429, 500, malformed bodies, timeouts and drops.
/// Issue 9 §6: pacing, backoff and the breaker run on a test clock: no sleeps, no elapsed time.
@Suite struct OpenLibrarySourceTests {
    typealias Book = FakeOpenLibraryServer.Book
    static let dune = LookupFixtures.isbn13("978044117271")

    /// `count` books the fake knows, keyed by ISBN.
    static func books(_ count: Int) -> [String: Book] { FakeOpenLibraryServer.numberedBooks(count) }

    static func isbnRecords(_ books: [String: Book]) -> [BookRecord] {
        books.keys.sorted().enumerated().map { index, isbn in
            LookupFixtures.record(line: index + 2, title: books[isbn]!.title, author: "Ann Author", isbn13: isbn)
        }
    }

    /// Test parameters: fast backoff and a high rate unless `extra` (JSON members) overrides them.
    static func parameters(_ baseURL: String, _ extra: String = "", top: String = "") -> String {
        var openLibrary: [String: Any] = [
            "baseURL": baseURL, "requestsPerSecond": 100, "backoffBaseSeconds": 0.01,
            "backoffMaxSeconds": 0.05, "timeoutSeconds": 2,
        ]
        let overrides =
            try! JSONSerialization.jsonObject(with: Data(("{" + extra.drop { $0 == "," } + "}").utf8)) as! [String: Any]
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

    /// Runs the stage; pacing and backoff waits pass at once on the default `ImmediateClock`.
    static func run(
        _ records: [BookRecord], parameters: String, in directory: TemporaryDirectory,
        now: Date = Date(timeIntervalSince1970: 1_790_000_000),
        clock: PacingClock = PacingClock(ImmediateClock())
    ) async throws -> Run {
        try LookupFixtures.writeRecords(records, to: directory.file("in.ndjson.gz"))
        let stage = LookupStage(
            job: StageJob(
                inputs: [.records: directory.file("in.ndjson.gz")], outputs: [.records: directory.file("out.ndjson.gz")],
                progress: directory.file("progress.json"), arguments: .init(clock: clock)))
        let report = try await stage.run(context: LookupFixtures.context(parameters, directory: directory.path, now: now))
        return Run(report: report, records: try LookupFixtures.readRecords(directory.file("out.ndjson.gz")))
    }

    @Test(.bug(id: 4)) func batchesManyISBNsPerRequestWithAnIdentifyingUserAgent() async throws {
        let books = Self.books(120)
        let server = try await FakeOpenLibraryServer(books: books)
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-ol")
        let run = try await Self.run(
            Self.isbnRecords(books), parameters: Self.parameters(server.baseURL, #", "batchSize": 50"#),
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
    @Test(.bug(id: 14)) func isbnAnswerNamesItsWork() async throws {
        let books = Self.books(3)
        let server = try await FakeOpenLibraryServer(books: books)
        defer { Task { try? await server.shutdown() } }
        let run = try await Self.run(
            Self.isbnRecords(books), parameters: Self.parameters(server.baseURL),
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

    /// Issue 9: one mapper reads both answer shapes; each field comes from wherever its shape keeps it.
    @Test(.bug(id: 9)) func bothAnswerShapesMapThroughOneMapper() throws {
        let answer = #"""
            {"ISBN:A": {"bib_key": "ISBN:A", "details": {"key": "/books/OL1M", "title": "Dune", "subtitle": "Book One",
              "works": [{"key": "/works/OL1W"}], "authors": [{"key": "/authors/OL1A", "name": "Frank Herbert"}],
              "publishers": ["Ace", "Chilton"], "isbn_13": ["not an isbn", "978-0-441-17271-9"], "isbn_10": ["0441172717"],
              "number_of_pages": 604, "publish_date": "August 1990", "covers": [-1, 0, 123]}},
             "ISBN:B": {"key": "/books/OL2M", "title": "Kindred", "authors": [{"name": "Octavia E. Butler"}, {"url": "x"}],
              "publishers": [{"name": "Beacon"}], "identifiers": {"isbn_13": ["9780807083697"], "isbn_10": ["0807083690"]},
              "publish_date": "2003", "cover": {"small": "https://covers.openlibrary.org/b/id/77-S.jpg",
              "large": "https://covers.openlibrary.org/b/id/78-L.jpg"}}}
            """#
        let decoded = try OpenLibrarySource.decodeBooks(Data(answer.utf8))
        let details = try #require(decoded["ISBN:A"])
        #expect(details.editionKey == "/books/OL1M" && details.workKey == "/works/OL1W")
        #expect(details.title == "Dune" && details.subtitle == "Book One" && details.authors == ["Frank Herbert"])
        #expect(details.publishers == ["Ace", "Chilton"])
        #expect(details.isbn13 == "9780441172719" && details.isbn10 == "0441172717")
        #expect(details.pages == 604 && details.year == 1990 && details.coverId == 123)
        let data = try #require(decoded["ISBN:B"])
        #expect(data.editionKey == "/books/OL2M" && data.workKey == nil)
        #expect(data.authors == ["Octavia E. Butler"] && data.publishers == ["Beacon"])
        #expect(data.isbn13 == "9780807083697" && data.isbn10 == "0807083690")
        #expect(data.year == 2003 && data.coverId == 77)
        // A publisher that is neither a name nor an object is a malformed answer, not a guess.
        #expect(throws: DecodingError.self) {
            try OpenLibrarySource.decodeBooks(Data(#"{"ISBN:C": {"details": {"publishers": [42]}}}"#.utf8))
        }
    }

    enum Fault: String, CaseIterable, Sendable {
        case rateLimited, serverError, malformedJSON, droppedConnection, timeout, latency

        func response() -> LoopbackResponse {
            switch self {
            case .rateLimited: .json(status: 429, "{\"error\": \"too many requests\"}")
            case .serverError: .json(status: 500, "oops")
            case .malformedJSON: .json("{\"ISBN:97810000")
            case .droppedConnection: .drop
            // Answered long after the client's 0.5 s timeout has cancelled the transfer.
            case .timeout: .json("{}", delay: .seconds(60))
            case .latency: .json("{}", delay: .milliseconds(50))
            }
        }
    }

    /// Every request's first attempt fails; the retry succeeds. Nothing is lost, retries are bounded.
    @Test(.bug(id: 4), arguments: Fault.allCases)
    func faultsAreRetriedAndEveryRowFinishes(_ fault: Fault) async throws {
        let books = Self.books(30)
        let server = try await FakeOpenLibraryServer(books: books)
        defer { Task { try? await server.shutdown() } }
        let seen = SeenURIs()
        server.fault = { _, request in
            if fault == .latency { return nil }
            return seen.firstTime(request.uri) ? fault.response() : nil
        }
        if fault == .latency { server.latency = .milliseconds(100) }
        let directory = TemporaryDirectory("lookup-ol")
        var records = Self.isbnRecords(books)
        records.append(LookupFixtures.record(line: 100, title: "Book Number 7", author: "Ann Author"))
        records.append(LookupFixtures.record(line: 101, title: "Unknown To Everyone", author: "Nobody"))
        // A generous timeout except where the timeout is the fault: a loaded machine must not turn latency into one.
        let timeout = fault == .timeout ? 0.5 : 30
        let run = try await Self.run(
            records,
            parameters: Self.parameters(
                server.baseURL, #", "batchSize": 10, "timeoutSeconds": \#(timeout), "maxRetries": 3, "breakerThreshold": 50"#),
            in: directory)
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
                #expect(server.requests.count == 2 * distinct)
            }
        }
        if fault == .rateLimited { #expect(run.report.rateLimited == distinct) }
    }

    @Test(.bug(id: 4)) func malformedAnswersEndAsNotEnrichedAfterBoundedRetries() async throws {
        let server = try await FakeOpenLibraryServer()
        defer { Task { try? await server.shutdown() } }
        server.fault = { _, _ in .html("<html>maintenance</html>") }
        let directory = TemporaryDirectory("lookup-ol")
        let records = [LookupFixtures.record(line: 2, title: "Dune", author: "Frank Herbert", isbn13: Self.dune)]
        let run = try await Self.run(
            records, parameters: Self.parameters(server.baseURL, #", "maxRetries": 2, "breakerThreshold": 50"#),
            in: directory)
        #expect(run.records.map { $0.match?.status } == [.notEnriched])
        #expect(run.records[0].match?.reason?.hasPrefix("lookup failed: malformed response") == true)
        #expect(server.requests.count == 6, "ISBN request and search, 3 attempts each")
        #expect(run.report.retries == 4)
    }

    @Test(.bug(id: 4)) func waitBudgetStopsRetriesWhenUsedUp() async throws {
        let server = try await FakeOpenLibraryServer()
        defer { Task { try? await server.shutdown() } }
        server.fault = { _, _ in .json(status: 500, "down") }
        var parameters = OpenLibraryParameters()
        parameters.baseURL = server.baseURL
        parameters.requestsPerSecond = 100
        parameters.maxRetries = 10
        parameters.breakerThreshold = 100
        parameters.backoffBaseSeconds = 0.2
        parameters.waitBudgetSeconds = 0.5
        let clock = ImmediateClock()
        let source = try #require(try OpenLibrarySource.make(parameters, setup: .test(clock: PacingClock(clock))))
        do {
            _ = try await source.editions(isbns: [Self.dune])
            Issue.record("expected a failure")
        } catch let failure as SourceFailure {
            guard case .failed(_, let reason) = failure else { Issue.record("\(failure)"); return }
            #expect(reason.contains("wait budget"))
        }
        let counters = await source.client.snapshot()
        #expect(counters.backoffSeconds <= 0.5)
        #expect(counters.backoffSeconds > 0.1, "at least one backoff was waited")
        #expect(counters.requests < 11, "gave up before maxRetries")
        #expect(counters.requests == counters.retries + 1)
        // The backoff waits ran on the injected clock: it advanced by what the counters say was waited.
        #expect(clock.elapsed >= .milliseconds(Int64(counters.backoffSeconds * 1000) - 1))
    }

    /// Issue 9 §6: pacing on a test clock. Slots are at least 1/rate apart, so no one-second window
    /// holds more than `rate` request starts, however the requests are scheduled.
    @Test(.bug(id: 9), arguments: [1.0, 3.0, 8.0])
    func pacingSpacesRequestStartsOnTheClock(_ rate: Double) async throws {
        let clock = ImmediateClock()
        let limiter = RateLimiter(requestsPerSecond: rate, clock: PacingClock(clock))
        var starts: [Duration] = []
        for _ in 0..<25 {
            try await limiter.acquire()
            starts.append(clock.elapsed)
        }
        let gaps = zip(starts.dropFirst(), starts).map { $0 - $1 }
        #expect(gaps.allSatisfy { $0 >= .nanoseconds(Int64(1e9 / rate)) }, "\(gaps)")
        for (index, start) in starts.enumerated() {
            let inWindow = starts[index...].prefix { $0 - start < .seconds(1) }.count
            #expect(inWindow <= Int(rate), "\(inWindow) starts within 1 s of \(start)")
        }
    }

    /// Issue 9 §6: the limiter paces the requests a stage really sends (asked before each attempt).
    @Test(.bug(id: 9)) func everyRequestWaitsForItsPacingSlot() async throws {
        let server = try await FakeOpenLibraryServer()
        defer { Task { try? await server.shutdown() } }
        let clock = ImmediateClock()
        let directory = TemporaryDirectory("lookup-ol")
        let records = (0..<24).map { LookupFixtures.record(line: $0 + 2, title: "Distinct Title \($0)", author: "Someone") }
        let run = try await Self.run(
            records,
            parameters: Self.parameters(
                server.baseURL, #", "requestsPerSecond": 8, "concurrency": 1"#), in: directory, clock: PacingClock(clock))
        #expect(server.requests.count == 24)
        #expect(run.records.allSatisfy { $0.match?.status == .notEnriched && $0.match?.reason == "no candidate" })
        // 24 starts at 8/s (with the 4 % safety margin): the last slot is 23 intervals after the first.
        #expect(clock.elapsed >= .milliseconds(23 * 125))
    }

    @Test(.bug(id: 4)) func circuitBreakerTripsThenRecoversAfterCooldown() async throws {
        let healthy = Toggle()
        let server = try await FakeOpenLibraryServer(books: Self.books(3))
        defer { Task { try? await server.shutdown() } }
        server.fault = { _, _ in healthy.isOn ? nil : .json(status: 503, "down") }
        var parameters = OpenLibraryParameters()
        parameters.baseURL = server.baseURL
        parameters.requestsPerSecond = 100
        parameters.backoffBaseSeconds = 0.01
        parameters.maxRetries = 1
        parameters.breakerThreshold = 3
        parameters.breakerCooldownSeconds = 30
        let clock = ImmediateClock()
        let source = try #require(try OpenLibrarySource.make(parameters, setup: .test(clock: PacingClock(clock))))
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
        // Server back; still open until the cooldown has passed on the clock.
        healthy.isOn = true
        await #expect(throws: SourceFailure.unavailable(source: "openlibrary")) { try await source.editions(isbns: [isbns[2]]) }
        #expect(server.requests.count == 3)
        // After the cooldown one probe goes through and closes the breaker.
        try await clock.sleep(for: .seconds(31))
        let found = try await source.editions(isbns: [isbns[2]])
        #expect(found.count == 1)
        #expect(try await source.editions(isbns: [isbns[0]]).count == 1)
        #expect(source.client.breaker.state == .closed)
        #expect(!source.client.isOffline)
    }

    /// Refused connections trip the breaker: every request is refused at once (no waiting for the
    /// probe); the probe is due after the probe delay, and each refused probe doubles the delay, up
    /// to the cooldown.
    @Test(.bug(id: 25)) func refusedConnectionsRefuseRequestsAtOnceAndProbeLater() async throws {
        let clock = TestClock()
        let breaker = CircuitBreaker(threshold: 2, cooldownSeconds: 5, clock: PacingClock(clock))
        breaker.recordFailure(.unreachable)
        #expect(breaker.state == .closed)
        breaker.recordFailure(.unreachable)
        #expect(breaker.state == .open(until: CircuitBreaker.unreachableProbeDelay, unreachable: true))
        #expect(breaker.admit() == .unreachable(probe: false), "refused at once, not held for the probe")
        #expect(breaker.standing() == .unreachable(probe: false))
        // The probe is due: the first to ask sends it; the others are still refused meanwhile.
        await clock.advance(by: CircuitBreaker.unreachableProbeDelay)
        #expect(breaker.standing() == .unreachable(probe: true))
        #expect(breaker.admit() == .unreachable(probe: false), "one probe at a time")
        // Refused too: open again for twice as long (4 s), then capped at the cooldown (5 s).
        breaker.recordFailure(.unreachable)
        #expect(breaker.state == .open(until: .seconds(2 + 4), unreachable: true))
        await clock.advance(by: .seconds(4))
        #expect(breaker.admit() == .unreachable(probe: true))
        breaker.recordFailure(.unreachable)
        #expect(breaker.state == .open(until: .seconds(6 + 5), unreachable: true))
        // A probe that reaches the server closes it.
        await clock.advance(by: .seconds(5))
        #expect(breaker.standing() == .unreachable(probe: true))
        breaker.recordSuccess()
        #expect(breaker.state == .closed)
        #expect(breaker.admit() == .send(probe: false))
        #expect(breaker.trips == 1)
    }

    /// A server that refuses connections for a while (restarting) mid-run: its requests settle at
    /// once as `offline`, unsent; the probe goes out in the background once due and, the server back,
    /// re-admits the source: later requests are answered.
    @Test(.bug(id: 25)) func restartedServerIsAskedAgainAfterTheBackgroundProbe() async throws {
        let books = Self.books(3)
        let isbns = books.keys.sorted()
        var closed: RefusingLoopbackPort? = try RefusingLoopbackPort()
        let port = closed!.port
        var parameters = OpenLibraryParameters()
        parameters.baseURL = closed!.baseURL
        parameters.requestsPerSecond = 100
        let clock = TestClock()
        let pacing = PacingClock(clock)
        let source = try #require(try OpenLibrarySource.make(parameters, setup: .test(clock: pacing)))
        await #expect(throws: SourceFailure.offline(source: "openlibrary")) { try await source.editions(isbns: [isbns[0]]) }
        let tripped = await source.client.snapshot()
        #expect(tripped.requests == parameters.breakerThreshold, "retried at once until the breaker opened: \(tripped)")
        #expect(tripped.offline?.contains("connection refused") == true)
        #expect(pacing.now == .zero, "no pacing slot or backoff was waited for refused connections")
        // Refused at once, unsent, while the breaker is open: nothing waits.
        #expect(source.standingFailure == .offline(source: "openlibrary"))
        await #expect(throws: SourceFailure.offline(source: "openlibrary")) { try await source.editions(isbns: [isbns[1]]) }
        #expect(await source.client.snapshot().requests == tripped.requests)

        // The server comes back on the same port.
        closed = nil
        let server = try await bindingAgain { try await FakeOpenLibraryServer(books: books, port: port) }
        defer { Task { try? await server.shutdown() } }
        await clock.advance(by: CircuitBreaker.unreachableProbeDelay)
        // The probe is due: this read starts it and still answers at once.
        #expect(source.standingFailure == .offline(source: "openlibrary"))
        await source.client.probeFinished()
        #expect(server.requests.count == 1, "the probe")
        #expect(source.standingFailure == nil)
        // The next request waits for its pacing slot (after the probe's) on the clock.
        let answer = Task { try await source.editions(isbns: [isbns[2]]) }
        await clock.advance(by: .seconds(1))
        #expect(try await answer.value.count == 1)
        #expect(source.client.breaker.state == .closed)
        #expect(!source.client.isOffline)
    }

    /// More requests than `concurrency` to a port that refuses connections: the first one's refused
    /// attempts are tried again at once, in its own pacing slot and its own place in the
    /// concurrency gate, until the breaker opens; the requests queued behind it (for the gate or
    /// their pacing slots) then settle as `offline` without a slot being waited for. The clock
    /// never moves: before, the refused request gave up its place in the gate and queued behind
    /// requests sleeping for later slots (0.34 s at 3 requests/s, bench/offline).
    @Test(.bug(id: 25)) func refusedRequestsNeverWaitForAPacingSlotOrAPlaceInTheGate() async throws {
        let closed = try RefusingLoopbackPort()
        defer { withExtendedLifetime(closed) {} }  // the port stays bound (refusing) for the whole test
        var parameters = OpenLibraryParameters()
        parameters.baseURL = closed.baseURL
        parameters.concurrency = 2
        parameters.requestsPerSecond = 3
        let clock = TestClock()
        let pacing = PacingClock(clock)
        let source = try #require(try OpenLibrarySource.make(parameters, setup: .test(clock: pacing)))
        // Failure backstop only: if a request waits for a slot, move the clock on so that the test
        // ends (and fails on the clock's reading) instead of hanging.
        let backstop = Task {
            try await Task.sleep(for: .seconds(120))
            await clock.advance(by: .seconds(3600))
        }
        defer { backstop.cancel() }
        let isbns = Self.books(8).keys.sorted()
        let failures = await withTaskGroup(of: SourceFailure?.self) { group in
            for isbn in isbns {
                group.addTask {
                    do {
                        _ = try await source.editions(isbns: [isbn])
                        return nil
                    } catch {
                        return error as? SourceFailure
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(failures == Array(repeating: .offline(source: "openlibrary"), count: isbns.count))
        #expect(pacing.now == .zero, "a request waited for a pacing slot: \(pacing.now)")
        let counters = await source.client.snapshot()
        #expect(counters.requests == parameters.breakerThreshold, "only the first request's attempts went out: \(counters)")
        #expect(counters.notSent == isbns.count - 1, "\(counters)")
        #expect(counters.offline?.contains("connection refused") == true)
    }

    @Test(.bug(id: 14)) func nameResolutionFailureIsOfflineAtOnce() async throws {
        let breaker = CircuitBreaker(threshold: 5, cooldownSeconds: 30, clock: PacingClock(TestClock()))
        breaker.recordFailure(.nameResolution)
        #expect(breaker.state == .offline)
        #expect(breaker.admit() == .offline)
    }

    @Test(.bug(id: 14)) func serverErrorsStillFailFastWhileOpenAndCloseAfterAProbe() async throws {
        let clock = TestClock()
        let breaker = CircuitBreaker(threshold: 1, cooldownSeconds: 30, clock: PacingClock(clock))
        breaker.recordFailure(.other)
        #expect(breaker.admit() == .unavailable)
        #expect(breaker.standing() == nil, "a failing source's requests still take their slots")
        await clock.advance(by: .seconds(30))
        #expect(breaker.admit() == .send(probe: true))
        #expect(breaker.admit() == .unavailable, "one probe at a time")
        breaker.recordSuccess()
        #expect(breaker.admit() == .send(probe: false))
    }

    /// Issue 14 §5: an Open Library that refuses connections: every row ends `notEnriched` with
    /// reason `offline`, within a few seconds of waiting (on the clock) rather than one row per slot.
    @Test(.bug(id: 14)) func unreachableSourceSettlesEveryRowAsOffline() async throws {
        let closed = try RefusingLoopbackPort()
        defer { withExtendedLifetime(closed) {} }  // the port stays bound (refusing) for the whole test
        let directory = TemporaryDirectory("lookup-ol")
        let records = (0..<400).map {
            LookupFixtures.record(
                line: $0 + 2, title: "Title \($0)", author: "A",
                isbn13: $0 % 2 == 0 ? LookupFixtures.isbn13(String(978_100_000_000 + $0)) : nil)
        }
        let clock = ImmediateClock()
        let run = try await Self.run(
            records,
            parameters: Self.parameters(
                closed.baseURL, #", "requestsPerSecond": 3, "breakerCooldownSeconds": 30, "batchSize": 50"#),
            in: directory, clock: PacingClock(clock))
        #expect(run.records.count == 400)
        #expect(run.records.allSatisfy { $0.match?.status == .notEnriched && $0.match?.reason == "offline" })
        #expect(run.report.notEnrichedReasons == ["offline": 400])
        #expect(run.report.counts.total == run.report.recordsRead)
        #expect(run.report.http["openlibrary"]?.offline?.contains("connection refused") == true, "\(run.report.http)")
        // Threshold (5) plus what was in flight, plus a probe: not one request per row.
        #expect(run.report.requests <= 5 + 5 + 1, "\(run.report.requests)")
        // Waiting happened on the clock: pacing of those few attempts, backoff and the probe delay.
        #expect(clock.elapsed < .seconds(30), "\(clock.now)")
    }

    /// Issue 14 §5: with no `sources` in the config, the local catalog (when one is configured in
    /// pipeline.json or given with `--catalog`) is asked first, then the Open Library API.
    @Test(
        .bug(id: 14),
        arguments: [
            (#"{}"#, [], ["openlibrary"]),
            (#"{"catalog": ["dump.txt"]}"#, [], ["catalog", "openlibrary"]),
            (#"{}"#, ["dump.txt"], ["catalog", "openlibrary"]),
            (#"{"sources": ["catalog"], "catalog": ["dump.txt"]}"#, [], ["catalog"]),
            (#"{"sources": ["openlibrary"], "catalog": ["dump.txt"]}"#, [], ["openlibrary"]),
        ] as [(String, [String], [String])])
    func defaultSourcesAreTheCatalogThenOpenLibrary(_ parameters: String, _ catalog: [String], _ expected: [String]) throws {
        let directory = TemporaryDirectory("lookup-ol")
        let stage = LookupStage(job: StageJob(arguments: .init(catalog: catalog)))
        let resolved = try stage.parameters(context: LookupFixtures.context(parameters, directory: directory.path))
        #expect(resolved.sources == expected)
    }

    @Test(.bug(id: 14)) func emptySourcesIsStillAConfigError() throws {
        let directory = TemporaryDirectory("lookup-ol")
        let stage = LookupStage(job: StageJob(arguments: .init()))
        #expect(throws: LookupError.self) {
            try stage.parameters(context: LookupFixtures.context(#"{"sources": []}"#, directory: directory.path))
        }
    }

    /// Issue 14 §5: `offline` answers are not cached: the next run asks for those rows again.
    @Test(.bug(id: 14)) func offlineAnswersAreNotCached() async throws {
        let books = Self.books(4)
        let closed = try RefusingLoopbackPort()
        defer { withExtendedLifetime(closed) {} }  // the port stays bound (refusing) for the whole test
        let directory = TemporaryDirectory("lookup-ol")
        var records = Self.isbnRecords(books)
        records.append(LookupFixtures.record(line: 40, title: "Book Number 2", author: "Ann Author"))
        let offline = try await Self.run(records, parameters: Self.parameters(closed.baseURL), in: directory)
        #expect(offline.report.notEnrichedReasons["offline"] == 5)
        let again = try await Self.run(records, parameters: Self.parameters(closed.baseURL), in: directory)
        #expect(again.report.cacheHits == 0)
        #expect(again.report.requests > 0, "asked again")
        let server = try await FakeOpenLibraryServer(books: books)
        defer { Task { try? await server.shutdown() } }
        let online = try await Self.run(records, parameters: Self.parameters(server.baseURL), in: directory)
        #expect(online.report.cacheHits == 0)
        #expect(
            online.records.map { $0.match?.status } == [
                .matchedByIsbn, .matchedByIsbn, .matchedByIsbn, .matchedByIsbn, .matchedBySearch,
            ])
    }

    /// While the source is out of reach its rows are settled at once, unasked, yet an answer an
    /// earlier run cached is still an answer: those rows are matched, the others `offline`.
    @Test(.bug(id: 25)) func cachedAnswersStillServeRowsWhileTheSourceIsOffline() async throws {
        let books = Self.books(3)
        let directory = TemporaryDirectory("lookup-ol")
        let known = Self.isbnRecords(books) + [LookupFixtures.record(line: 40, title: "Book Number 2", author: "Ann Author")]
        let server = try await FakeOpenLibraryServer(books: books)
        let online = try await Self.run(known, parameters: Self.parameters(server.baseURL), in: directory)
        try await server.shutdown()
        #expect(
            online.records.compactMap { $0.match?.status } == [.matchedByIsbn, .matchedByIsbn, .matchedByIsbn, .matchedBySearch])

        let closed = try RefusingLoopbackPort()
        defer { withExtendedLifetime(closed) {} }  // the port stays bound (refusing) for the whole test
        let unknown = [
            LookupFixtures.record(
                line: 50, title: "Never Asked", author: "New Author",
                isbn13: LookupFixtures.isbn13("978100000777")),
            LookupFixtures.record(line: 51, title: "Never Searched", author: "New Author"),
        ]
        let offline = try await Self.run(known + unknown, parameters: Self.parameters(closed.baseURL), in: directory)
        #expect(offline.report.cacheHits == 4, "\(offline.report)")
        #expect(offline.records.prefix(4).map { $0.match?.status } == online.records.map { $0.match?.status })
        #expect(offline.records.suffix(2).map { $0.match?.reason } == ["offline", "offline"])
        #expect(offline.report.notEnrichedReasons == ["offline": 2])
    }

    @Test(.bug(id: 4)) func repeatedRunRepeatsNoFinishedLookup() async throws {
        let books = Self.books(5)
        let server = try await FakeOpenLibraryServer(books: books)
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-ol")
        var records = Self.isbnRecords(books)
        records.append(
            LookupFixtures.record(line: 50, title: "Not Known", author: "X", isbn13: LookupFixtures.isbn13("978999999999")))
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

    @Test(.bug(id: 4)) func duplicateRowsReuseTheFirstRowsAnswer() async throws {
        let server = try await FakeOpenLibraryServer(books: Self.books(1))
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-ol")
        let records = [
            LookupFixtures.record(
                line: 2, title: "Book Number 0", author: "Ann Author", dedupe: DedupeMark(status: .new, key: "k")),
            LookupFixtures.record(
                line: 3, title: "Book Number 0", author: "Ann Author",
                dedupe: DedupeMark(status: .duplicateInFile, key: "k", firstLine: 2)),
            LookupFixtures.record(
                line: 4, title: "Book Number 0", author: "Ann Author",
                dedupe: DedupeMark(status: .duplicateInFile, key: "k", firstLine: 2)),
        ]
        let run = try await Self.run(records, parameters: Self.parameters(server.baseURL, top: #""chunkSize": 2"#), in: directory)
        #expect(server.requests.count == 1)
        #expect(run.report.duplicatesReused == 2)
        #expect(Set(run.records.map { $0.match?.status }) == [.matchedBySearch])
        #expect(Set(run.records.map { $0.match?.workKey }) == ["/works/OL0W"])
    }

    @Test(.bug(id: 4)) func sourcesAreChainedInOrder() async throws {
        let onlineOnly = LookupFixtures.isbn13("978100000000")
        let server = try await FakeOpenLibraryServer(books: [
            onlineOnly: Book(
                key: "/books/OLX1M", title: "Online Only",
                authors: ["Web Writer"], work: "/works/OLX1W")
        ])
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-ol")
        let catalog = LookupFixtures.sampleCatalog.map { "\"\($0)\"" }.joined(separator: ",")
        let parameters = Self.parameters(
            server.baseURL, top: #""sources": ["catalog", "openlibrary"], "catalog": ["# + catalog + "]")
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

    /// The stop signal arrives while requests are in flight (raised by the server on its 20th
    /// request, not after a sleep): the stage pauses, writes no output, and keeps what it fetched.
    @Test(.bug(id: 4)) func stopSignalPausesAndKeepsTheCache() async throws {
        let books = Self.books(200)
        let server = try await FakeOpenLibraryServer(books: books)
        defer { Task { try? await server.shutdown() } }
        let flag = CancellationFlag()
        server.latency = .milliseconds(50)
        server.fault = { number, _ in
            if number == 20 { flag.cancel() }
            return nil
        }
        let directory = TemporaryDirectory("lookup-ol")
        try LookupFixtures.writeRecords(Self.isbnRecords(books), to: directory.file("in.ndjson.gz"))
        let stage = LookupStage(
            job: StageJob(
                inputs: [.records: directory.file("in.ndjson.gz")], outputs: [.records: directory.file("out.ndjson.gz")],
                progress: directory.file("progress.json"), arguments: .init(clock: PacingClock(ImmediateClock()))))
        let context = try LookupFixtures.context(
            Self.parameters(
                server.baseURL, #", "batchSize": 1, "concurrency": 2"#, top: #""chunkSize": 50"#),
            directory: directory.path, cancellation: flag)
        await #expect(throws: TryLaterError.self) { try await stage.run(context: context) }
        #expect(server.requests.count < 200, "stopped before the end")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.ndjson.gz")), "no partial output")
        let progress = try readJSONFile(StageProgress.self, from: directory.file("progress.json"))
        #expect(!progress.finished)
        // Answers received before the stop are in the cache: a resumed run does not ask for them again.
        server.latency = nil
        server.fault = { _, _ in nil }
        // The resumed run's own count of its requests, not the server's: a request the stopped run had
        // already sent may reach the server after the stop returned, and would count as the new run's.
        let resumed = try await Self.run(
            Self.isbnRecords(books),
            parameters: Self.parameters(
                server.baseURL, #", "batchSize": 1, "concurrency": 5"#), in: directory)
        #expect(resumed.report.cacheHits > 0)
        let asked = try #require(resumed.report.http["openlibrary"]).requests
        #expect(asked + resumed.report.cacheHits == 200)
        #expect(resumed.records.allSatisfy { $0.match?.status == .matchedByIsbn })
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

extension ImmediateClock<Duration> {
    /// Time the clock has advanced since it was made (it starts at offset zero).
    var elapsed: Duration { Instant().duration(to: now) }
}
