import Foundation

/// A Google Books stand-in on loopback: `GET /books/v1/volumes?q=isbn:X` and
/// `q=intitle:… inauthor:…` and `GET /books/v1/volumes/{id}` answered in the documented shape (`{"kind": "books#volumes",
/// "totalItems": N, "items": […]}`, no `items` when nothing matches), with injected faults and a
/// request log. The title search, like the real one, matches title words and ignores whether the
/// author fits, so near misses (same title, another author) come back as candidates.
public final class FakeGoogleBooksServer: Sendable {
    /// A volume the fake knows.
    public struct Volume: Sendable {
        public var id: String
        public var title: String
        public var authors: [String]
        public var isbn13: String?
        public var publisher: String
        public var publishedDate: String
        public var pageCount: Int

        public init(
            id: String, title: String, authors: [String], isbn13: String?, publisher: String = "Heyne",
            publishedDate: String = "2004-03-01", pageCount: Int = 320
        ) {
            self.id = id
            self.title = title
            self.authors = authors
            self.isbn13 = isbn13
            self.publisher = publisher
            self.publishedDate = publishedDate
            self.pageCount = pageCount
        }
    }

    /// Decides, per request number (1-based) and request, whether to answer otherwise; nil = normally.
    public typealias Fault = @Sendable (Int, LoopbackRequest) -> LoopbackResponse?

    private let server: LoopbackHTTPServer
    private let state: State

    public init(volumes: [Volume]) async throws {
        let state = State(volumes: volumes)
        self.state = state
        server = try await LoopbackHTTPServer(immediate: { request in state.answer(request) })
    }

    /// `http://127.0.0.1:PORT`
    public var baseURL: String { server.baseURL }

    /// Every request received so far, in arrival order.
    public var requests: [LoopbackRequest] { server.requests }

    public var fault: Fault {
        get { state.locked { $0.fault } }
        set { state.locked { $0.fault = newValue } }
    }

    public func shutdown() async throws { try await server.shutdown() }

    /// Google's quota answers: 403 when the daily limit is spent, 429 when the rate is exceeded.
    public static func quotaAnswer(status: Int) -> LoopbackResponse {
        let reason = status == 403 ? "dailyLimitExceeded" : "rateLimitExceeded"
        return .json(
            status: status,
            #"""
            {"error": {"code": \#(status), "message": "Quota exceeded for quota metric 'Queries'", \#
            "errors": [{"message": "Quota exceeded", "domain": "usageLimits", "reason": "\#(reason)"}], \#
            "status": "RESOURCE_EXHAUSTED"}}
            """#)
    }

    private final class State: @unchecked Sendable {
        struct Fields {
            var volumes: [Volume]
            var fault: Fault = { _, _ in nil }
            var count = 0
        }

        private let lock = NSLock()
        private var fields: Fields

        init(volumes: [Volume]) { fields = Fields(volumes: volumes) }

        func locked<T>(_ body: (inout Fields) -> T) -> T { lock.withLock { body(&fields) } }

        func answer(_ request: LoopbackRequest) -> LoopbackResponse {
            let (number, fault, volumes) = locked { fields -> (Int, Fault, [Volume]) in
                fields.count += 1
                return (fields.count, fields.fault, fields.volumes)
            }
            if let failure = fault(number, request) { return failure }
            if request.path.hasPrefix("/books/v1/volumes/") {
                let id = request.path.dropFirst("/books/v1/volumes/".count)
                guard let volume = volumes.first(where: { $0.id == id }) else {
                    return .json(status: 404, #"{"error": {"code": 404, "message": "The volume ID could not be found."}}"#)
                }
                return .json(Self.item(volume))
            }
            guard request.path == "/books/v1/volumes", let q = request.query["q"] else {
                return .json(status: 404, #"{"error": {"code": 404, "message": "Not Found"}}"#)
            }
            let limit = min(40, Int(request.query["maxResults"] ?? "10") ?? 10)
            let found: [Volume]
            if q.hasPrefix("isbn:") {
                let isbn = String(q.dropFirst(5))
                found = volumes.filter { $0.isbn13 == isbn }
            } else {
                let title =
                    q.range(of: "intitle:").map { start in
                        String(q[start.upperBound...].prefix { _ in true }).components(separatedBy: " inauthor:")[0]
                    } ?? q
                let words = Self.words(title)
                found = volumes.filter { Self.words($0.title) == words }
            }
            guard !found.isEmpty else { return .json(#"{"kind": "books#volumes", "totalItems": 0}"#) }
            let items = found.prefix(limit).map(Self.item)
            return .json(
                #"{"kind": "books#volumes", "totalItems": \#(found.count), "items": [\#(items.joined(separator: ","))]}"#)
        }

        static func words(_ text: String) -> [Substring] {
            text.lowercased().split { !$0.isLetter && !$0.isNumber }
        }

        static func json(_ value: some Encodable) -> String {
            String(decoding: (try? JSONEncoder().encode(value)) ?? Data("null".utf8), as: UTF8.self)
        }

        /// One volume as the API writes it.
        static func item(_ volume: Volume) -> String {
            let identifiers = volume.isbn13.map { #"[{"type": "ISBN_13", "identifier": \#(json($0))}]"# } ?? "[]"
            return #"""
                {"kind": "books#volume", "id": \#(json(volume.id)), "etag": "x", \#
                "selfLink": "https://www.googleapis.com/books/v1/volumes/\#(volume.id)", \#
                "volumeInfo": {"title": \#(json(volume.title)), "authors": \#(json(volume.authors)), \#
                "publisher": \#(json(volume.publisher)), "publishedDate": \#(json(volume.publishedDate)), \#
                "industryIdentifiers": \#(identifiers), "pageCount": \#(volume.pageCount), "printType": "BOOK", \#
                "categories": ["Fiction"], "imageLinks": {"smallThumbnail": "http://books.google.com/books/content?id=\#(volume.id)&zoom=5", \#
                "thumbnail": "http://books.google.com/books/content?id=\#(volume.id)&zoom=1"}, "language": "de", \#
                "description": "A book."}}
                """#
        }
    }
}
