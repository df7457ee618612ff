import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The one Open Library stand-in, used by every lookup test and by `bench/lookup`: a real HTTP
/// server on loopback answering `/api/books?bibkeys=ISBN:…`, `/search.json` and the records by key
/// (`/books/{id}.json`, `/works/{id}.json`, `/authors/{id}.json`) in the documented shapes, with injected faults (429, 5xx, malformed bodies, drops, latency) and a request log.
public final class FakeOpenLibraryServer: Sendable {
    /// An edition the fake knows, keyed by its ISBN-13.
    public struct Book: Sendable {
        public var key: String
        public var title: String
        public var authors: [String]
        public var work: String

        public init(key: String, title: String, authors: [String], work: String) {
            self.key = key
            self.title = title
            self.authors = authors
            self.work = work
        }
    }

    /// Decides, per request number (1-based) and request, whether to fail and how; nil = answer normally.
    public typealias Fault = @Sendable (Int, LoopbackRequest) -> LoopbackResponse?

    /// Request counts for the bench (`GET /stats`).
    public struct Stats: Codable, Sendable {
        public var requests = 0
        public var rateLimited = 0
        /// The most requests that arrived within one second (real time).
        public var maxPerSecond = 0
    }

    private let server: LoopbackHTTPServer
    private let state: State

    /// - Parameters:
    ///   - books: editions by ISBN-13.
    ///   - everyISBN: also answer ISBNs not in `books`, with an edition derived from the ISBN (bench).
    ///   - derive: also answer ISBNs not in `books`, with the edition this returns (nil = a miss).
    ///   - rateLimit: answer 429 (like openlibrary.org, without Retry-After) to requests beyond this
    ///     many in the last second of real time (bench; tests inject 429s with `fault`).
    ///   - port: the loopback port to listen on (0: any free one; a test restarting a server names its old one).
    public init(
        books: [String: Book] = [:], everyISBN: Bool = false, derive: (@Sendable (String) -> Book?)? = nil,
        rateLimit: Int? = nil, port: Int = 0
    ) async throws {
        let benchBook: @Sendable (String) -> Book? = { isbn in
            let suffix = String(isbn.suffix(7))
            return Book(
                key: "/books/OL\(suffix)M", title: "Bench Book \(isbn)", authors: ["Bench Author"], work: "/works/OL\(suffix)W")
        }
        let state = State(books: books, derive: derive ?? (everyISBN ? benchBook : nil), rateLimit: rateLimit)
        self.state = state
        server = try await LoopbackHTTPServer(port: port, immediate: { request in state.answer(request) })
    }

    /// `http://127.0.0.1:PORT`
    public var baseURL: String { server.baseURL }

    /// The answer this fake gives `request` (also logged), for a server of a test's own that
    /// decides when to give it (e.g. holding lookup's answers until the test releases them).
    public func answer(_ request: LoopbackRequest) -> LoopbackResponse { state.answer(request) }
    public var port: Int { server.port }

    /// Every request received so far, in arrival order (`/stats` excluded).
    public var requests: [LoopbackRequest] { server.requests.filter { $0.path != "/stats" } }

    /// Returns once `count` requests have arrived; throws when they have not after `timeout` (real time).
    public func waitForRequests(_ count: Int, timeout: Duration = .seconds(120)) async throws {
        try await server.waitForRequests(count, timeout: timeout)
    }

    public var fault: Fault {
        get { state.locked { $0.fault } }
        set { state.locked { $0.fault = newValue } }
    }

    /// Every answer waits this long.
    public var latency: Duration? {
        get { state.locked { $0.latency } }
        set { state.locked { $0.latency = newValue } }
    }

    public var stats: Stats { state.locked { $0.stats } }

    public func shutdown() async throws { try await server.shutdown() }

    /// An author's key in the fake's records, the same for the same name (`/authors/OL…A`).
    public static func authorKey(_ name: String) -> String {
        let number = name.utf8.reduce(UInt32(2_166_136_261)) { ($0 ^ UInt32($1)) &* 16_777_619 } % 100_000_000
        return "/authors/OL\(number)A"
    }

    /// `count` books numbered from 0 (ISBN-13s `9781000NNNNN?`, title `Book Number N`, author Ann Author).
    public static func numberedBooks(_ count: Int) -> [String: Book] {
        var books: [String: Book] = [:]
        for number in 0..<count {
            books[isbn13(body: "9781000" + String(format: "%05d", number))] = Book(
                key: "/books/OL\(number)M", title: "Book Number \(number)", authors: ["Ann Author"], work: "/works/OL\(number)W")
        }
        return books
    }

    /// A valid ISBN-13 from a 12-digit body.
    public static func isbn13(body: String) -> String {
        let digits = body.compactMap(\.wholeNumberValue)
        let sum = digits.enumerated().reduce(0) { $0 + $1.element * ($1.offset % 2 == 0 ? 1 : 3) }
        return body + String((10 - sum % 10) % 10)
    }

    private final class State: @unchecked Sendable {
        struct Fields {
            var books: [String: Book]
            var derive: (@Sendable (String) -> Book?)?
            var rateLimit: Int?
            var fault: Fault = { _, _ in nil }
            var latency: Duration?
            var count = 0
            var stats = Stats()
            var arrivals: [ContinuousClock.Instant] = []
        }

        private let lock = NSLock()
        private var fields: Fields

        init(books: [String: Book], derive: (@Sendable (String) -> Book?)?, rateLimit: Int?) {
            fields = Fields(books: books, derive: derive, rateLimit: rateLimit)
        }

        func locked<T>(_ body: (inout Fields) -> T) -> T { lock.withLock { body(&fields) } }

        func answer(_ request: LoopbackRequest) -> LoopbackResponse {
            if request.path == "/stats" {
                let stats = locked { $0.stats }
                return .json(String(decoding: (try? JSONEncoder().encode(stats)) ?? Data(), as: UTF8.self))
            }
            let now = ContinuousClock.now
            let (number, fault, latency, limited, snapshot) = locked { fields -> (Int, Fault, Duration?, Bool, Fields) in
                fields.count += 1
                fields.stats.requests += 1
                fields.arrivals.removeAll { now - $0 >= .seconds(1) }
                fields.arrivals.append(now)
                fields.stats.maxPerSecond = max(fields.stats.maxPerSecond, fields.arrivals.count)
                let limited = fields.rateLimit.map { fields.arrivals.count > $0 } ?? false
                if limited { fields.stats.rateLimited += 1 }
                return (fields.count, fields.fault, fields.latency, limited, fields)
            }
            if limited { return .json(status: 429, #"{"error": "rate limited"}"#, delay: latency) }
            if let failure = fault(number, request) { return failure }
            switch request.path {
            case "/api/books":
                let keys = (request.query["bibkeys"] ?? "").split(separator: ",").map(String.init)
                var entries: [String] = []
                for bibkey in keys {
                    let isbn = bibkey.replacingOccurrences(of: "ISBN:", with: "")
                    guard let book = snapshot.books[isbn] ?? snapshot.derive?(isbn) else { continue }
                    entries.append(
                        request.query["jscmd"] == "details"
                            ? Self.details(bibkey: bibkey, isbn: isbn, book: book)
                            : Self.edition(bibkey: bibkey, isbn: isbn, book: book))
                }
                return .json("{" + entries.joined(separator: ",") + "}", delay: latency)
            case "/search.json":
                let title = Self.words(request.query["title"] ?? "")
                let docs = snapshot.books.values.filter { Self.words($0.title) == title }.sorted { $0.key < $1.key }.map(
                    Self.searchDoc)
                return .json(
                    #"{"numFound": \#(docs.count), "start": 0, "docs": [\#(docs.joined(separator: ","))]}"#, delay: latency)
            default:
                guard let record = Self.record(request.path, snapshot.books) else {
                    return .json(status: 404, #"{"error": "notfound"}"#)
                }
                return .json(record, delay: latency)
            }
        }

        /// The edition (`/books/{id}.json`), work (`/works/{id}.json`) or author (`/authors/{id}.json`)
        /// record of a book the fake knows, as openlibrary.org writes them: the edition and work
        /// name their authors by key only (`authorKey`).
        static func record(_ path: String, _ books: [String: Book]) -> String? {
            guard path.hasSuffix(".json") else { return nil }
            let key = String(path.dropLast(5))
            for (isbn, book) in books.sorted(by: { $0.key < $1.key }) {
                if book.key == key {
                    let authors = book.authors.map { #"{"key": \#(json(FakeOpenLibraryServer.authorKey($0)))}"# }
                    return #"""
                        {"key": \#(json(book.key)), "title": \#(json(book.title)), "authors": [\#(authors.joined(separator: ","))],
                        "works": [{"key": \#(json(book.work))}], "isbn_13": [\#(json(isbn))], "publishers": ["Ace"],
                        "publish_date": "1990", "number_of_pages": 604, "covers": [123], "type": {"key": "/type/edition"}}
                        """#
                }
                if book.work == key {
                    let authors = book.authors.map {
                        #"{"author": {"key": \#(json(FakeOpenLibraryServer.authorKey($0)))}, "type": {"key": "/type/author_role"}}"#
                    }
                    return #"""
                        {"key": \#(json(book.work)), "title": \#(json(book.title)), "authors": [\#(authors.joined(separator: ","))],
                        "covers": [77], "description": {"type": "/type/text", "value": "About \#(book.title)."},
                        "type": {"key": "/type/work"}}
                        """#
                }
                if let name = book.authors.first(where: { FakeOpenLibraryServer.authorKey($0) == key }) {
                    return #"{"key": \#(json(key)), "name": \#(json(name)), "type": {"key": "/type/author"}}"#
                }
            }
            return nil
        }

        /// Lowercased letter/digit runs: enough to find a title asked for in another case or spacing.
        static func words(_ text: String) -> [Substring] {
            text.lowercased().split { !$0.isLetter && !$0.isNumber }
        }

        static func json(_ value: some Encodable) -> String {
            String(decoding: (try? JSONEncoder().encode(value)) ?? Data("null".utf8), as: UTF8.self)
        }

        /// One `jscmd=data` entry, as openlibrary.org writes it.
        static func edition(bibkey: String, isbn: String, book: Book) -> String {
            let authors = book.authors.map { #"{"name": \#(json($0)), "url": "https://openlibrary.org/authors/OL1A"}"# }
            return #"""
                \#(json(bibkey)): {"url": "https://openlibrary.org\#(book.key)", "key": \#(json(book.key)), "title": \#(json(book.title)),
                "authors": [\#(authors.joined(separator: ","))], "identifiers": {"isbn_13": [\#(json(isbn))], "openlibrary": ["X"]},
                "publishers": [{"name": "Ace"}], "publish_date": "1990", "number_of_pages": 604,
                "cover": {"small": "https://covers.openlibrary.org/b/id/123-S.jpg", "medium": "https://covers.openlibrary.org/b/id/123-M.jpg"}}
                """#
        }

        /// One `jscmd=details` entry: the edition record, which names its work.
        static func details(bibkey: String, isbn: String, book: Book) -> String {
            let authors = book.authors.map { #"{"key": "/authors/OL1A", "name": \#(json($0))}"# }
            return #"""
                \#(json(bibkey)): {"bib_key": \#(json(bibkey)), "info_url": "https://openlibrary.org\#(book.key)",
                "details": {"key": \#(json(book.key)), "title": \#(json(book.title)), "works": [{"key": \#(json(book.work))}],
                "authors": [\#(authors.joined(separator: ","))], "isbn_13": [\#(json(isbn))], "publishers": ["Ace"],
                "publish_date": "1990", "number_of_pages": 604, "covers": [123]}}
                """#
        }

        /// One `search.json` doc (a work).
        static func searchDoc(_ book: Book) -> String {
            #"{"key": \#(json(book.work)), "title": \#(json(book.title)), "author_name": \#(json(book.authors)), "#
                + #""first_publish_year": 1965, "cover_i": 77}"#
        }
    }
}

/// A loopback port that refuses connections: bound, so no other server takes it, but not
/// listening. Stands in for an Open Library that cannot be reached.
public final class RefusingLoopbackPort: Sendable {
    public let port: Int
    private let descriptor: Int32

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(fd)
            throw POSIXError(.init(rawValue: code) ?? .EIO)
        }
        descriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// `http://127.0.0.1:PORT`
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    deinit { close(descriptor) }
}
