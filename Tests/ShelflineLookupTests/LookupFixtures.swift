import Foundation
import ShelflineCore
import ShelflineLookup
import TestSupport

/// Shared helpers of the lookup tests: the sample catalog, records, contexts, dump lines.
enum LookupFixtures {
    static var sampleCatalog: [String] {
        let directory = ExecutableRunner.repositoryRoot + "/examples/catalog"
        return [directory + "/editions.txt.gz", directory + "/works.txt.gz", directory + "/authors.txt"]
    }

    /// A record as parse/dedupe would write it.
    static func record(line: Int, title: String, author: String? = nil, isbn13: String? = nil, titleBase: String? = nil,
                       dedupe: DedupeMark? = nil) -> BookRecord {
        var record = BookRecord(format: .goodreads, line: line, title: title)
        record.author = author
        record.isbn13 = isbn13
        record.titleBase = titleBase
        record.dedupe = dedupe
        return record
    }

    static func writeRecords(_ records: [BookRecord], to path: String) throws {
        let writer = try NDJSONWriter<BookRecord>(path: path)
        for record in records { try writer.append(record) }
        try writer.commit()
    }

    static func readRecords(_ path: String) throws -> [BookRecord] {
        try NDJSONReader<BookRecord>(path: path).readAll()
    }

    /// A context whose lookup parameters are `parameters` (JSON), with a pinned clock.
    static func context(_ parameters: String, directory: String, now: Date = Date(timeIntervalSince1970: 1_790_000_000),
                        cancellation: CancellationFlag = CancellationFlag()) throws -> StageContext {
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(parameters.utf8))
        let config = PipelineConfig(stages: [StageDeclaration(name: .lookup, inputs: [], outputs: [], parameters: value)])
        return StageContext(now: { now }, config: config, configPath: directory + "/pipeline.json", log: Logfmt(quiet: true),
                            cancellation: cancellation)
    }

    /// One dump line in the Open Library layout.
    static func dumpLine(_ type: String, _ key: String, _ json: String) -> String {
        "/type/\(type)\t\(key)\t1\t2026-01-01T00:00:00\t\(json)\n"
    }

    /// Valid ISBN-13 from a 12-digit body.
    static func isbn13(_ body: String) -> String {
        var sum = 0
        for (index, character) in body.enumerated() { sum += Int(String(character))! * (index % 2 == 0 ? 1 : 3) }
        return body + String((10 - sum % 10) % 10)
    }
}

/// An Open Library stand-in served by `LoopbackHTTPServer`: documented response shapes, with
/// failures injected per request number.
final class FakeOpenLibrary: @unchecked Sendable {
    struct Book {
        var key: String
        var title: String
        var authors: [String]
        var work: String
    }

    private let lock = NSLock()
    private(set) var books: [String: Book] = [:]
    private var count = 0
    /// Decides, per request number (1-based), whether to fail and how; nil = answer normally.
    var fault: @Sendable (Int, LoopbackRequest) -> LoopbackResponse? = { _, _ in nil }
    var latency: Duration?

    init(books: [String: Book]) { self.books = books }

    var requestCount: Int { lock.withLock { count } }

    func handle(_ request: LoopbackRequest) -> LoopbackResponse {
        let number = lock.withLock { count += 1; return count }
        if let failure = fault(number, request) { return failure }
        switch request.path {
        case "/api/books":
            let keys = (request.query["bibkeys"] ?? "").split(separator: ",").map(String.init)
            var entries: [String] = []
            for bibkey in keys {
                let isbn = bibkey.replacingOccurrences(of: "ISBN:", with: "")
                guard let book = books[isbn] else { continue }
                if request.query["jscmd"] == "details" {
                    // The documented `details` shape: the edition record, which names its work.
                    entries.append("""
                        "\(bibkey)": {"bib_key": "\(bibkey)", "info_url": "https://openlibrary.org\(book.key)",
                        "details": {"key": "\(book.key)", "title": "\(book.title)", "works": [{"key": "\(book.work)"}],
                        "authors": [\(book.authors.map { "{\"key\": \"/authors/X\", \"name\": \"\($0)\"}" }.joined(separator: ","))],
                        "isbn_13": ["\(isbn)"], "publishers": ["Ace"], "publish_date": "1990", "number_of_pages": 604, "covers": [123]}}
                        """)
                    continue
                }
                let authors = book.authors.map { "{\"name\": \"\($0)\", \"url\": \"https://openlibrary.org/authors/X\"}" }
                entries.append("""
                    "\(bibkey)": {"url": "https://openlibrary.org\(book.key)", "key": "\(book.key)", "title": "\(book.title)",
                    "authors": [\(authors.joined(separator: ","))], "identifiers": {"isbn_13": ["\(isbn)"], "openlibrary": ["X"]},
                    "publishers": [{"name": "Ace"}], "publish_date": "1990", "number_of_pages": 604,
                    "cover": {"small": "https://covers.openlibrary.org/b/id/123-S.jpg", "medium": "https://covers.openlibrary.org/b/id/123-M.jpg"}}
                    """)
            }
            return .json("{" + entries.joined(separator: ",") + "}", delay: latency)
        case "/search.json":
            let title = TextNormalizer.tokens(request.query["title"] ?? "")
            let docs = books.values.filter { TextNormalizer.tokens($0.title) == title }.sorted { $0.key < $1.key }.map { book in
                "{\"key\": \"\(book.work)\", \"title\": \"\(book.title)\", \"author_name\": [\(book.authors.map { "\"\($0)\"" }.joined(separator: ","))], \"first_publish_year\": 1965, \"cover_i\": 77}"
            }
            return .json("{\"numFound\": \(docs.count), \"start\": 0, \"docs\": [\(docs.joined(separator: ","))]}", delay: latency)
        default:
            return .json(status: 404, "{\"error\": \"notfound\"}")
        }
    }
}

/// The largest number of requests the server saw in any one-second window.
func maxRequestsPerSecond(_ requests: [LoopbackRequest]) -> Int {
    let times = requests.map(\.receivedAt.timeIntervalSince1970).sorted()
    var best = 0
    var start = 0
    for end in times.indices {
        while times[end] - times[start] >= 1.0 { start += 1 }
        best = max(best, end - start + 1)
    }
    return best
}
