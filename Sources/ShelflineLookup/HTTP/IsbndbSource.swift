import Foundation
import ShelflineCore

/// The ISBNdb API v2; the key (required) goes in `Authorization`. 403 and 429 are quota answers.
public struct IsbndbSource: HTTPMetadataSource, RegisteredSource {
    public static let sourceName = "isbndb"
    public static let section = "isbndb"
    public let client: ResilientHTTPClient
    public let baseURL: URL
    /// The basic plan's most ISBNs per `POST /books`.
    public var isbnBatchSize: Int { 100 }

    /// The API answers nothing without a key.
    public static func make(_ settings: IsbndbParameters, setup: SourceSetup) throws -> IsbndbSource? {
        guard let keyFile = settings.apiKeyFile else {
            setup.log.error(
                "shelfline-lookup: source '\(sourceName)' skipped: it needs a key (set the lookup stage's "
                    + "\(section).apiKeyFile in \(setup.configPath) to a mode 0600 file holding it)")
            return nil
        }
        let baseURL = try SourceEndpoint.baseURL(
            settings.baseURL, source: sourceName, section: section, configPath: setup.configPath)
        let key = try SourceEndpoint.apiKey(
            path: keyFile, key: "stages[lookup].parameters.isbndb.apiKeyFile", configPath: setup.configPath)
        var policy = settings.policy(userAgent: setup.userAgent, quotaStatuses: [403, 429])
        policy.headers = [("Authorization", key)]
        return IsbndbSource(client: ResilientHTTPClient(source: sourceName, policy: policy, clock: setup.clock), baseURL: baseURL)
    }

    public func editions(isbns: [String]) async throws -> [String: EditionMetadata] {
        guard !isbns.isEmpty else { return [:] }
        // One by `GET /book/{isbn}`, more by `POST /books`.
        let one = isbns.count == 1
        let url = baseURL.appendingPathComponent(one ? "book/\(isbns[0])" : "books")
        let form = one ? nil : "isbns=" + isbns.joined(separator: ",")
        let books = try await client.fetch(url, form: form, absent: [404]) { try Self.decode($0) }
        return isbns.reduce(into: [:]) { found, isbn in
            found[isbn] = books.first { $0.carries(isbn: isbn) }
        }
    }

    /// Its own id is `isbndb:` and the ISBN-13.
    public func editions(ids: [String]) async throws -> [String: EditionMetadata] {
        var isbnOf: [String: String] = [:]
        for id in ids where id.hasPrefix(Self.idPrefix) {
            if let isbn = ISBN.canonical13(String(id.dropFirst(Self.idPrefix.count))) { isbnOf[id] = isbn }
        }
        let found = try await editions(isbns: Array(Set(isbnOf.values)).sorted())
        return isbnOf.compactMapValues { found[$0] }
    }

    static let idPrefix = "isbndb:"

    public func candidates(title: String, author: String?, limit: Int) async throws -> [EditionMetadata] {
        let url = SourceEndpoint.url(
            baseURL.appendingPathComponent("books").appendingPathComponent(title),
            query: [("column", "title"), ("pageSize", String(limit))])
        return try await client.fetch(url, absent: [404]) { try Self.decode($0) }
    }

    /// `book` from `GET /book`, `books` from a title search, `data` from `POST /books`.
    private struct Answer: Decodable {
        var book: Book?
        var books: [Book]?
        var data: [Book]?
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
        var image: String?
    }

    /// An empty body is a 404.
    static func decode(_ data: Data) throws -> [EditionMetadata] {
        guard !data.isEmpty else { return [] }
        let answer = try JSONDecoder().decode(Answer.self, from: data)
        return ((answer.book.map { [$0] } ?? []) + (answer.books ?? []) + (answer.data ?? [])).compactMap { book in
            guard let title = book.title ?? book.title_long else { return nil }
            var edition = EditionMetadata(source: Self.sourceName)
            edition.isbn13 = (book.isbn13 ?? book.isbn).flatMap(ISBN.canonical13)
            edition.isbn10 = book.isbn10
            edition.editionKey = edition.isbn13.map { idPrefix + $0 }
            edition.title = title
            edition.authors = book.authors.flatMap { $0.isEmpty ? nil : $0 }
            edition.publishers = book.publisher.map { [$0] }
            edition.publishDate = book.date_published
            edition.year = book.date_published.flatMap(CatalogIndex.year)
            edition.pages = book.pages.flatMap { $0 > 0 ? $0 : nil }
            edition.description = book.synopsis
            edition.coverURL = SourceEndpoint.coverURL(book.image)
            return edition
        }
    }
}

/// The basic plan's rate.
public enum IsbndbDefaults: KeyedSourceDefaults {
    public static let baseURL = "https://api2.isbndb.com"
    public static let requestsPerSecond = 1.0
    public static let concurrency = 1
}

/// The `isbndb` section of the lookup stage's parameters.
public typealias IsbndbParameters = KeyedSourceParameters<IsbndbDefaults>
