import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import TestTraits
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What lookup's Open Library client accepts from the network and where it may send requests.
@Suite(.offCooperativePool) struct LookupHTTPLimitsEndToEndTests {
    /// The lookup report's fields these tests read.
    struct Report: Decodable {
        var recordsRead: Int
        var requests: Int
        var cacheHits: Int
        var counts: EnrichmentCounts
        var notEnrichedReasons: [String: Int]
        var http: [String: Counters]
    }

    /// The report's per-source HTTP counters this suite reads.
    struct Counters: Decodable {
        var requests: Int
        var retries: Int
        var oversizedResponses: Int
        var notSent: Int
        var offline: String?
    }

    /// An answer longer than `maxResponseBytes` fails its attempt like a malformed one: retried,
    /// then the rows are `notEnriched` with a reason naming the limit. The body here is a valid
    /// answer for the row, so only the limit keeps it out.
    @Test(.bug(id: 23, "§2")) func answerOverTheSizeLimitFailsItsAttemptsAndLeavesRowsNotEnriched() async throws {
        let isbn = FakeOpenLibraryServer.isbn13(body: "978100000001")
        let padding = String(repeating: "x", count: 200_000)
        let server = try await LoopbackHTTPServer(immediate: { request in
            request.path == "/api/books"
                ? .json(
                    #"{"ISBN:\#(isbn)": {"details": {"key": "/books/OL1M", "title": "Long Book", "works": [{"key": "/works/OL1W"}], "#
                        + #""authors": [{"name": "Ann Author"}], "notes": "\#(padding)"}}}"#)
                : .json(#"{"docs": [], "padding": "\#(padding)"}"#)
        })
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-e2e-size-limit")
        try LookupEndToEndTests.writeInput(
            [LookupEndToEndTests.record(2, "Long Book", "Ann Author", isbn13: isbn)], in: directory)
        directory.write(
            "pipeline.json",
            """
            {"stages": [{"name": "lookup", "inputs": [], "outputs": [], "parameters": {"sources": ["openlibrary"],
              "openLibrary": {"baseURL": "\(server.baseURL)", "maxResponseBytes": 65536, "maxRetries": 2,
                              "backoffBaseSeconds": 0, "backoffMaxSeconds": 0, "requestsPerSecond": 100, "breakerThreshold": 100}}}]}
            """)
        let result = try ExecutableRunner.run(
            "shelfline-lookup",
            ["deduped.ndjson.gz", "-o", "out.ndjson.gz", "--report", "report.json", "--workspace", "ws", "--quiet"],
            in: directory.path)
        #expect(result.status == 0, "\(result)")
        let report = try readJSONFile(Report.self, from: directory.file("report.json"))
        let counters = try #require(report.http["openlibrary"])
        #expect(
            counters.oversizedResponses == counters.requests && counters.requests == 6,
            "three attempts for the ISBN, three for the search: \(counters)")
        #expect(counters.retries == 4)
        #expect(report.counts.notEnriched == 1)
        let record = try #require(try NDJSONReader<BookRecord>(path: directory.file("out.ndjson.gz")).readAll().first)
        #expect(record.match?.status == .notEnriched)
        #expect(
            record.match?.reason?.contains("longer than 65536 bytes (maxResponseBytes)") == true,
            "\(String(describing: record.match))")

        // The same answers within a larger limit are read: the row is matched.
        try ConfigFile.edit(directory.file("pipeline.json")) { config in
            config.editParameters(of: "lookup") { parameters in
                var openLibrary = parameters["openLibrary"] as? [String: Any] ?? [:]
                openLibrary["maxResponseBytes"] = 1_048_576
                parameters["openLibrary"] = openLibrary
            }
        }
        let again = try ExecutableRunner.run(
            "shelfline-lookup",
            ["deduped.ndjson.gz", "-o", "out.ndjson.gz", "--report", "report.json", "--workspace", "fresh", "--quiet"],
            in: directory.path)
        #expect(again.status == 0, "\(again)")
        #expect(try readJSONFile(Report.self, from: directory.file("report.json")).counts.matchedByIsbn == 1)
    }

    /// An answer with no `Content-Length`, whose body goes on until the connection closes (a
    /// server streaming without end), is cut off at the limit as it arrives: the attempt fails like
    /// an oversized one, and the stage ends instead of reading on.
    @Test(.bug(id: 23, "§2")) func endlessAnswerWithoutALengthIsCutOffAtTheLimit() throws {
        let server = try EndlessAnswerServer()
        let directory = TemporaryDirectory("lookup-e2e-endless")
        try LookupEndToEndTests.writeInput([LookupEndToEndTests.record(2, "Long Book", "Ann Author")], in: directory)
        directory.write(
            "pipeline.json",
            """
            {"stages": [{"name": "lookup", "inputs": [], "outputs": [], "parameters": {"sources": ["openlibrary"],
              "openLibrary": {"baseURL": "http://127.0.0.1:\(server.port)", "maxResponseBytes": 65536, "maxRetries": 0,
                              "requestsPerSecond": 100, "timeoutSeconds": 600}}}]}
            """)
        let result = try ExecutableRunner.run(
            "shelfline-lookup",
            ["deduped.ndjson.gz", "-o", "out.ndjson.gz", "--report", "report.json", "--workspace", "ws", "--quiet"],
            in: directory.path)
        #expect(result.status == 0, "\(result)")
        let report = try readJSONFile(Report.self, from: directory.file("report.json"))
        #expect(report.http["openlibrary"]?.oversizedResponses == 1, "\(report.http)")
        #expect(
            report.notEnrichedReasons.keys.contains { $0.contains("longer than 65536 bytes") }, "\(report.notEnrichedReasons)")
    }

    /// Plain `http://` would send every title and ISBN in clear text: only a loopback address may
    /// use it (as `beerQueue.host`); anything else is a configuration error naming the key.
    @Test(.bug(id: 23, "§2"), arguments: ["http://openlibrary.org", "http://10.0.0.7:8080", "HTTP://example.com/"])
    func plainHTTPBaseURLOffLoopbackIsAConfigError(_ baseURL: String) throws {
        let directory = TemporaryDirectory("lookup-e2e-plain-http")
        try LookupEndToEndTests.writeInput(LookupEndToEndTests.exampleRecords, in: directory)
        directory.write(
            "pipeline.json",
            """
            {"stages": [{"name": "lookup", "inputs": [], "outputs": [], "parameters": {"sources": ["openlibrary"],
              "openLibrary": {"baseURL": "\(baseURL)"}}}]}
            """)
        let result = try ExecutableRunner.run(
            "shelfline-lookup", ["deduped.ndjson.gz", "-o", "out.ndjson.gz", "--workspace", "ws"], in: directory.path)
        #expect(result.status == 78, "\(result)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(result)")
        #expect(result.stderr.contains("openLibrary.baseURL") && result.stderr.contains("loopback"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("out.ndjson.gz")))
    }
}

/// A loopback HTTP server that answers every connection with a 200 and no `Content-Length`, then
/// writes body bytes until the client goes away. Its thread ends with the process.
final class EndlessAnswerServer: @unchecked Sendable {
    let port: Int

    init() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard listener >= 0, bound, listen(listener, 16) == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread {
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 65_536)
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                Thread {
                    var request = [UInt8](repeating: 0, count: 65_536)
                    _ = recv(connection, &request, request.count, 0)
                    let head = Array(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{\"docs\": [], \"x\": \""
                            .utf8)
                    var open = send(connection, head, head.count, Int32(MSG_NOSIGNAL)) > 0
                    while open { open = send(connection, chunk, chunk.count, Int32(MSG_NOSIGNAL)) > 0 }
                    close(connection)
                }.start()
            }
        }
        thread.start()
    }
}
