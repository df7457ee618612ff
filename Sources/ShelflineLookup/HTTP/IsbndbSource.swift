import Foundation
import ShelflineCore

/// The ISBNdb API v2: `GET /book/{isbn}` and `GET /books/{title}?column=title`, the key in the
/// `Authorization` header (required: without `isbndb.apiKeyFile` the stage skips the source).
/// A 404 means "not known"; 403 and 429 mean the plan's quota is spent and end the source for the run.
public struct IsbndbSource: HTTPMetadataSource {
    public let client: ResilientHTTPClient
    let baseURL: URL
    public var name: String { SourceKind.isbndb.rawValue }
    public var isbnBatchSize: Int { 1 }
    public var endpoint: String { baseURL.absoluteString }

    public init(
        parameters: IsbndbParameters, apiKeyFile: String, userAgent: String, clock: PacingClock = .continuous,
        configPath: String = "pipeline.json"
    ) throws {
        baseURL = try SourceEndpoint.baseURL(
            parameters.baseURL, source: SourceKind.isbndb.rawValue, section: "isbndb",
            configPath: configPath)
        let key = try SourceEndpoint.apiKey(
            path: apiKeyFile, key: "stages[lookup].parameters.isbndb.apiKeyFile", configPath: configPath)
        var policy = parameters.policy(userAgent: userAgent, quotaStatuses: [403, 429])
        policy.absentStatuses = [404]
        policy.headers = [("Authorization", key)]
        client = ResilientHTTPClient(source: SourceKind.isbndb.rawValue, policy: policy, clock: clock)
    }

    public func editions(isbns: [String]) async throws -> [String: EditionMetadata] {
        var found: [String: EditionMetadata] = [:]
        for isbn in isbns {
            let url = baseURL.appendingPathComponent("book").appendingPathComponent(isbn)
            let books = try await client.get(url) { try Self.decode($0) }
            if let edition = books.first(where: { GoogleBooksSource.carries($0, isbn: isbn) }) { found[isbn] = edition }
        }
        return found
    }

    public func candidates(title: String, author: String?, limit: Int) async throws -> [EditionMetadata] {
        var components = URLComponents(
            url: baseURL.appendingPathComponent("books").appendingPathComponent(title),
            resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "column", value: "title"), URLQueryItem(name: "pageSize", value: String(limit)),
        ]
        return try await client.get(components.url!) { try Self.decode($0) }
    }

    struct Malformed: Error {}

    private struct Answer: Decodable {
        var book: Book?
        var books: [Book]?
    }

    private struct Book: Decodable {
        var title: String?
        var title_long: String?
        var authors: [String]?
        var publisher: String?
        var date_published: String?
        var pages: Int?
        var isbn13: String?
        var isbn10: String?
        var isbn: String?
        var synopsis: String?
    }

    /// `{"book": {…}}` or `{"total": N, "books": […]}`; an empty body (404) is no book.
    static func decode(_ data: Data) throws -> [EditionMetadata] {
        guard !data.isEmpty else { return [] }
        let answer: Answer
        do {
            answer = try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw Malformed()
        }
        return ((answer.book.map { [$0] } ?? []) + (answer.books ?? [])).compactMap { book in
            guard let title = book.title ?? book.title_long else { return nil }
            var edition = EditionMetadata(source: SourceKind.isbndb.rawValue)
            edition.isbn13 = (book.isbn13 ?? book.isbn).flatMap(ISBN.canonical13)
            edition.isbn10 = book.isbn10
            edition.editionKey = edition.isbn13.map { "isbndb:\($0)" }
            edition.title = title
            edition.authors = book.authors.flatMap { $0.isEmpty ? nil : $0 }
            edition.publishers = book.publisher.map { [$0] }
            edition.publishDate = book.date_published
            edition.year = book.date_published.flatMap(CatalogIndex.year)
            edition.pages = book.pages.flatMap { $0 > 0 ? $0 : nil }
            edition.description = book.synopsis
            return edition
        }
    }
}

/// ISBNdb's defaults: the basic plan's rate, one request a second.
public enum IsbndbDefaults: KeyedSourceDefaults {
    public static let baseURL = "https://api2.isbndb.com"
    public static let requestsPerSecond = 1.0
    public static let concurrency = 1
}

/// Settings of the ISBNdb source (`isbndb`); `apiKeyFile` is required (else the source is skipped).
public typealias IsbndbParameters = KeyedSourceParameters<IsbndbDefaults>
