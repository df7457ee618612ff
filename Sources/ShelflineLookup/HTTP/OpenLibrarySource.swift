import Foundation
import ShelflineCore

/// The Open Library API: `/api/books` for batches of ISBNs, `/search.json` for title/author,
/// `/books/{OLID}.json` and `/works/{OLID}.json` for its own ids.
public struct OpenLibrarySource: HTTPMetadataSource, RegisteredSource {
    public static let sourceName = "openlibrary"
    public static let section = "openLibrary"
    public let client: ResilientHTTPClient
    public let baseURL: URL
    public let isbnBatchSize: Int

    public static func make(_ settings: OpenLibraryParameters, setup: SourceSetup) throws -> OpenLibrarySource? {
        let baseURL = try SourceEndpoint.baseURL(
            settings.baseURL, source: sourceName, section: section, configPath: setup.configPath)
        let client = ResilientHTTPClient(source: sourceName, policy: HTTPPolicy(settings), clock: setup.clock)
        return OpenLibrarySource(client: client, baseURL: baseURL, isbnBatchSize: settings.batchSize)
    }

    public func editions(isbns: [String]) async throws -> [String: EditionMetadata] {
        guard !isbns.isEmpty else { return [:] }
        let url = SourceEndpoint.url(
            baseURL.appendingPathComponent("api/books"),
            query: [
                ("bibkeys", isbns.map { "ISBN:\($0)" }.joined(separator: ",")),
                // `details` (not `data`): only the edition record names its work, so that editions of one
                // work are one book whichever source found them.
                ("format", "json"), ("jscmd", "details"),
            ])
        let answer = try await client.fetch(url) { data in try Self.decodeBooks(data) }
        return isbns.reduce(into: [:]) { found, isbn in found[isbn] = answer["ISBN:\(isbn)"] }
    }

    public func candidates(title: String, author: String?, limit: Int) async throws -> [EditionMetadata] {
        let url = SourceEndpoint.url(
            baseURL.appendingPathComponent("search.json"),
            query: [
                ("title", title), ("author", author?.isEmpty == false ? author : nil), ("fields", Self.searchFields),
                ("limit", String(limit)),
            ])
        return try await client.fetch(url) { data in try Self.decodeSearch(data) }
    }

    public var identifierSchemes: [String] { ["openlibrary-edition", "openlibrary-work"] }
    /// Batches of one run side by side, paced by the client.
    public var idBatchSize: Int { 1 }

    /// The records name their authors by key only: each author's name is asked too.
    public func editions(ids: [String]) async throws -> [String: EditionMetadata] {
        var found: [String: EditionMetadata] = [:]
        for id in ids {
            guard let path = Self.jsonPath(id, kinds: ["M": "books", "W": "works"]) else { continue }
            let url = baseURL.appendingPathComponent(path)
            guard let (record, authorKeys) = try await client.fetch(url, absent: [404], decode: { try Self.decodeRecord($0) })
            else { continue }
            var edition = record
            var names: [String] = []
            for key in authorKeys.prefix(Self.authorsAsked) {
                guard let authorPath = Self.jsonPath(key, kinds: ["A": "authors"]) else { continue }
                let name = try await client.fetch(baseURL.appendingPathComponent(authorPath), absent: [404]) {
                    try Self.decodeAuthor($0)
                }
                if let name { names.append(name) }
            }
            if !names.isEmpty { edition.authors = names }
            found[id] = edition
        }
        return found
    }

    static let authorsAsked = 3

    /// `books/OL1M.json` for `/books/OL1M` or `OL1M` (`kinds` maps the last letter to its folder).
    private static func jsonPath(_ id: String, kinds: [Character: String]) -> String? {
        let parts = id.split(separator: "/", omittingEmptySubsequences: false)
        let olid = parts.last ?? ""
        guard olid.hasPrefix("OL"), olid.count > 3, olid.dropFirst(2).dropLast().allSatisfy(\.isWholeNumber),
            let kind = olid.last, let folder = kinds[kind]
        else { return nil }
        guard parts.count == 1 || parts == ["", Substring(folder), olid] else { return nil }
        return "\(folder)/\(olid).json"
    }

    /// An edition or work record and its authors' keys; an empty body is a 404.
    static func decodeRecord(_ data: Data) throws -> (EditionMetadata, [String])? {
        guard !data.isEmpty else { return nil }
        let record = try JSONDecoder().decode(EditionRecord.self, from: data)
        guard record.title != nil, let key = record.key else { return nil }
        var found = edition(record)
        if key.hasPrefix("/works/") {
            found.editionKey = nil
            found.workKey = key
        }
        found.description = record.description?.name
        return (found, (record.authors ?? []).compactMap(\.key))
    }

    static func decodeAuthor(_ data: Data) throws -> String? {
        guard !data.isEmpty else { return nil }
        return try JSONDecoder().decode(Name.self, from: data).name
    }

    // MARK: Response shapes (documented Open Library JSON)

    /// `jscmd=details` puts the edition record under `details`, `jscmd=data` a summary at the top.
    private struct BooksEntry: Decodable {
        var edition: EditionRecord

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            edition = try container.decodeIfPresent(EditionRecord.self, forKey: .details) ?? EditionRecord(from: decoder)
        }

        enum Key: String, CodingKey { case details }
    }

    /// Either shape: `details` (publishers as strings, ISBN and cover lists) or `data` (publishers
    /// as `{name}`, ISBNs under `identifiers`, cover URLs).
    private struct EditionRecord: Decodable {
        var key: String?
        var title: String?
        var subtitle: String?
        var authors: [Name]?
        var publishers: [Name]?
        var identifiers: [String: [String]]?
        var isbn_13: [String]?
        var isbn_10: [String]?
        var number_of_pages: Int?
        var publish_date: String?
        var cover: Cover?
        var covers: [Int]?
        var works: [Ref]?
        var description: Name?

        struct Cover: Decodable { var small: String?; var medium: String?; var large: String? }
        struct Ref: Decodable { var key: String? }
    }

    /// `"Ace"`, or an object naming it: `{"name": "Ace", …}`, a text's `{"type": "/type/text",
    /// "value": "A text"}`; an author named by key (an edition record's `{"key": "/authors/OL1A"}`, a
    /// work record's `{"author": {"key": …}}`) keeps the key.
    private struct Name: Decodable {
        var name: String?
        var key: String?

        init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                name = text
            } else {
                let container = try decoder.container(keyedBy: Key.self)
                name =
                    try container.decodeIfPresent(String.self, forKey: .name)
                    ?? container.decodeIfPresent(String.self, forKey: .value)
                key =
                    try container.decodeIfPresent(String.self, forKey: .key)
                    ?? container.decodeIfPresent(Ref.self, forKey: .author)?.key
            }
        }

        struct Ref: Decodable { var key: String? }
        enum Key: String, CodingKey { case name, value, key, author }
    }

    static func decodeBooks(_ data: Data) throws -> [String: EditionMetadata] {
        try JSONDecoder().decode([String: BooksEntry].self, from: data).mapValues { edition($0.edition) }
    }

    private static func edition(_ record: EditionRecord) -> EditionMetadata {
        var edition = EditionMetadata(source: Self.sourceName)
        edition.editionKey = record.key
        edition.workKey = record.works?.first?.key
        edition.title = record.title
        edition.subtitle = record.subtitle
        let authors = (record.authors ?? []).compactMap(\.name)
        edition.authors = authors.isEmpty ? nil : authors
        let publishers = (record.publishers ?? []).compactMap(\.name)
        edition.publishers = publishers.isEmpty ? nil : publishers
        // The edition record's own ISBN-13 list is checked; the summary's is taken as written.
        edition.isbn13 =
            record.isbn_13.map { $0.lazy.compactMap(ISBN.canonical13).first } ?? record.identifiers?["isbn_13"]?.first
        edition.isbn10 = (record.isbn_10 ?? record.identifiers?["isbn_10"])?.first
        edition.pages = record.number_of_pages
        edition.publishDate = record.publish_date
        edition.year = record.publish_date.flatMap(CatalogIndex.year)
        let coverURL = record.cover.flatMap { $0.medium ?? $0.small ?? $0.large }
        edition.coverId = record.covers.map { $0.first { $0 > 0 } } ?? coverURL.flatMap(coverId)
        return edition
    }

    /// `https://covers.openlibrary.org/b/id/8231856-M.jpg` → 8231856.
    static func coverId(_ url: String) -> Int? {
        guard let range = url.range(of: "/b/id/") else { return nil }
        return Int(url[range.upperBound...].prefix { $0.isNumber })
    }

    /// `SearchAnswer.Doc`'s members, so that the search sends no others.
    static let searchFields =
        "key,title,subtitle,author_name,cover_i,first_publish_year,publisher,isbn,number_of_pages_median,cover_edition_key"

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

    static func decodeSearch(_ data: Data) throws -> [EditionMetadata] {
        try JSONDecoder().decode(SearchAnswer.self, from: data).docs.compactMap { doc in
            guard let key = doc.key, doc.title != nil else { return nil }
            var edition = EditionMetadata(source: Self.sourceName)
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
