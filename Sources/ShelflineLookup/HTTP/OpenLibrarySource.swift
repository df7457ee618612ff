import Foundation
import ShelflineCore

/// The Open Library API: `/api/books` for batches of ISBNs, `/search.json` for title/author.
public struct OpenLibrarySource: MetadataSource {
    public let client: ResilientHTTPClient
    let baseURL: URL
    public let isbnBatchSize: Int
    public var name: String { SourceKind.openlibrary.rawValue }
    public var isRemote: Bool { true }

    /// `clock` drives pacing, backoff and the circuit breaker (a test clock in tests).
    public init(parameters: OpenLibraryParameters, clock: PacingClock = .continuous) throws {
        guard let url = URL(string: parameters.baseURL.hasSuffix("/") ? String(parameters.baseURL.dropLast()) : parameters.baseURL),
              url.scheme == "http" || url.scheme == "https" else {
            throw LookupError.invalidBaseURL(source: SourceKind.openlibrary.rawValue, url: parameters.baseURL)
        }
        baseURL = url
        isbnBatchSize = parameters.batchSize
        client = ResilientHTTPClient(source: SourceKind.openlibrary.rawValue, policy: HTTPPolicy(parameters), clock: clock)
    }

    public func editions(isbns: [String]) async throws -> [String: EditionMetadata] {
        guard !isbns.isEmpty else { return [:] }
        var components = URLComponents(url: baseURL.appendingPathComponent("api/books"), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "bibkeys", value: isbns.map { "ISBN:\($0)" }.joined(separator: ",")),
            // `details` (not `data`): only the edition record names its work, so that editions of one
            // work are one book whichever source found them (issue 14 §3).
            URLQueryItem(name: "format", value: "json"), URLQueryItem(name: "jscmd", value: "details"),
        ]
        let answer = try await client.get(components.url!) { data in try Self.decodeBooks(data) }
        var found: [String: EditionMetadata] = [:]
        for isbn in isbns {
            if let edition = answer["ISBN:\(isbn)"] { found[isbn] = edition }
        }
        return found
    }

    public func candidates(title: String, author: String?, limit: Int) async throws -> [EditionMetadata] {
        var components = URLComponents(url: baseURL.appendingPathComponent("search.json"), resolvingAgainstBaseURL: false)!
        var items = [URLQueryItem(name: "title", value: title)]
        if let author, !author.isEmpty { items.append(URLQueryItem(name: "author", value: author)) }
        items.append(URLQueryItem(name: "fields", value: "key,title,subtitle,author_name,cover_i,first_publish_year,publisher,isbn,number_of_pages_median,cover_edition_key"))
        items.append(URLQueryItem(name: "limit", value: String(limit)))
        components.queryItems = items
        return try await client.get(components.url!) { data in try Self.decodeSearch(data) }
    }

    struct Malformed: Error {}

    // MARK: Response shapes (documented Open Library JSON)

    private struct BooksEntry: Decodable {
        struct Named: Decodable { var name: String? }
        struct Cover: Decodable { var small: String?; var medium: String?; var large: String? }
        var key: String?
        var title: String?
        var subtitle: String?
        var authors: [Named]?
        var publishers: [Named]?
        var identifiers: [String: [String]]?
        var number_of_pages: Int?
        var publish_date: String?
        var cover: Cover?
        var works: [Ref]?
        struct Ref: Decodable { var key: String? }
        /// `jscmd=details`: the edition record itself.
        var details: Details?
    }

    /// The edition record `jscmd=details` answers with (publishers as strings, covers as ids).
    private struct Details: Decodable {
        struct Named: Decodable { var key: String?; var name: String? }
        var key: String?
        var title: String?
        var subtitle: String?
        var authors: [Named]?
        var publishers: [String]?
        var isbn_13: [String]?
        var isbn_10: [String]?
        var number_of_pages: Int?
        var publish_date: String?
        var covers: [Int]?
        var works: [BooksEntry.Ref]?
    }

    /// `{"ISBN:…": {…}}`; anything else (HTML, an array, a truncated body) is malformed.
    static func decodeBooks(_ data: Data) throws -> [String: EditionMetadata] {
        let entries: [String: BooksEntry]
        do {
            entries = try JSONDecoder().decode([String: BooksEntry].self, from: data)
        } catch {
            throw Malformed()
        }
        var result: [String: EditionMetadata] = [:]
        for (bibkey, entry) in entries {
            if let details = entry.details {
                result[bibkey] = edition(details)
                continue
            }
            var edition = EditionMetadata(source: SourceKind.openlibrary.rawValue)
            edition.editionKey = entry.key
            edition.workKey = entry.works?.first?.key
            edition.title = entry.title
            edition.subtitle = entry.subtitle
            let authors = (entry.authors ?? []).compactMap(\.name)
            edition.authors = authors.isEmpty ? nil : authors
            let publishers = (entry.publishers ?? []).compactMap(\.name)
            edition.publishers = publishers.isEmpty ? nil : publishers
            edition.isbn13 = entry.identifiers?["isbn_13"]?.first
            edition.isbn10 = entry.identifiers?["isbn_10"]?.first
            edition.pages = entry.number_of_pages
            edition.publishDate = entry.publish_date
            edition.year = entry.publish_date.flatMap(CatalogIndex.year)
            edition.coverId = (entry.cover?.medium ?? entry.cover?.small ?? entry.cover?.large).flatMap(coverId)
            result[bibkey] = edition
        }
        return result
    }

    private static func edition(_ details: Details) -> EditionMetadata {
        var edition = EditionMetadata(source: SourceKind.openlibrary.rawValue)
        edition.editionKey = details.key
        edition.workKey = details.works?.first?.key
        edition.title = details.title
        edition.subtitle = details.subtitle
        let authors = (details.authors ?? []).compactMap(\.name)
        edition.authors = authors.isEmpty ? nil : authors
        edition.publishers = details.publishers?.isEmpty == false ? details.publishers : nil
        edition.isbn13 = details.isbn_13?.lazy.compactMap(ISBN.canonical13).first
        edition.isbn10 = details.isbn_10?.first
        edition.pages = details.number_of_pages
        edition.publishDate = details.publish_date
        edition.year = details.publish_date.flatMap(CatalogIndex.year)
        edition.coverId = details.covers?.first { $0 > 0 }
        return edition
    }

    /// `https://covers.openlibrary.org/b/id/8231856-M.jpg` → 8231856.
    static func coverId(_ url: String) -> Int? {
        guard let range = url.range(of: "/b/id/") else { return nil }
        return Int(url[range.upperBound...].prefix { $0.isNumber })
    }

    private struct SearchAnswer: Decodable {
        var docs: [Doc]
        struct Doc: Decodable {
            var key: String?
            var title: String?
            var subtitle: String?
            var author_name: [String]?
            var cover_i: Int?
            var first_publish_year: Int?
            var publisher: [String]?
            var isbn: [String]?
            var number_of_pages_median: Int?
            var cover_edition_key: String?
        }
    }

    /// `{"docs": [work, …]}`: candidates are works (edition key when the search names one).
    static func decodeSearch(_ data: Data) throws -> [EditionMetadata] {
        let answer: SearchAnswer
        do {
            answer = try JSONDecoder().decode(SearchAnswer.self, from: data)
        } catch {
            throw Malformed()
        }
        return answer.docs.compactMap { doc in
            guard let key = doc.key, doc.title != nil else { return nil }
            var edition = EditionMetadata(source: SourceKind.openlibrary.rawValue)
            edition.workKey = key
            edition.editionKey = doc.cover_edition_key.map { $0.hasPrefix("/") ? $0 : "/books/\($0)" }
            edition.title = doc.title
            edition.subtitle = doc.subtitle
            edition.authors = doc.author_name
            edition.publishers = doc.publisher.map { Array($0.prefix(3)) }
            edition.year = doc.first_publish_year
            edition.coverId = doc.cover_i
            edition.pages = doc.number_of_pages_median
            return edition
        }
    }
}
