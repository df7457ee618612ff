import Foundation
import ShelflineCore

/// The Google Books API. Works without a key (a small shared quota); 403 and 429 are quota answers.
public struct GoogleBooksSource: HTTPMetadataSource, RegisteredSource {
    public static let sourceName = "googlebooks"
    public static let section = "googleBooks"
    public let client: ResilientHTTPClient
    public let baseURL: URL
    /// Never in a message (the client's messages name the host and path only).
    private let apiKey: String?
    /// The API has no documented many-ISBN query.
    public var isbnBatchSize: Int { 1 }

    static let maxResults = 40

    public static func make(_ settings: GoogleBooksParameters, setup: SourceSetup) throws -> GoogleBooksSource? {
        let baseURL = try SourceEndpoint.baseURL(
            settings.baseURL, source: sourceName, section: section, configPath: setup.configPath)
        let apiKey = try settings.apiKeyFile.map {
            try SourceEndpoint.apiKey(
                path: $0, key: "stages[lookup].parameters.googleBooks.apiKeyFile", configPath: setup.configPath)
        }
        let policy = settings.policy(userAgent: setup.userAgent, quotaStatuses: [403, 429])
        let client = ResilientHTTPClient(source: sourceName, policy: policy, clock: setup.clock)
        return GoogleBooksSource(client: client, baseURL: baseURL, apiKey: apiKey)
    }

    public func editions(isbns: [String]) async throws -> [String: EditionMetadata] {
        var found: [String: EditionMetadata] = [:]
        for isbn in isbns {
            let volumes = try await client.fetch(volumesURL(search: "isbn:\(isbn)", limit: 10)) { try Self.decodeVolumes($0) }
            // Only a volume that carries the ISBN asked for: the search also returns near ones.
            if let edition = volumes.first(where: { $0.carries(isbn: isbn) }) { found[isbn] = edition }
        }
        return found
    }

    public func candidates(title: String, author: String?, limit: Int) async throws -> [EditionMetadata] {
        var query = "intitle:\(title)"
        if let author, !author.isEmpty { query += " inauthor:\(author)" }
        return try await client.fetch(volumesURL(search: query, limit: limit)) { try Self.decodeVolumes($0) }
    }

    /// Calibre's `google:` identifier.
    public var identifierSchemes: [String] { ["google"] }

    public func editions(ids: [String]) async throws -> [String: EditionMetadata] {
        var found: [String: EditionMetadata] = [:]
        for id in ids where SourceEndpoint.isPlainID(id) {
            let url = volumesURL(id: id)
            if let edition = try await client.fetch(url, absent: [404], decode: { try Self.decodeVolume($0) }) {
                found[id] = edition
            }
        }
        return found
    }

    /// A search, or with `id` one volume; the key, when there is one, comes last.
    private func volumesURL(id: String? = nil, search: String? = nil, limit: Int = 0) -> URL {
        let searching: [(String, String?)] =
            search.map { [("q", $0), ("maxResults", String(min(max(1, limit), Self.maxResults))), ("printType", "books")] }
            ?? []
        let volumes = baseURL.appendingPathComponent("books/v1/volumes")
        return SourceEndpoint.url(id.map { volumes.appendingPathComponent($0) } ?? volumes, query: searching + [("key", apiKey)])
    }

    // MARK: Response shape (documented Google Books JSON)

    private struct VolumesAnswer: Decodable {
        var items: [Volume]?
    }

    private struct Volume: Decodable {
        var id: String?
        var volumeInfo: VolumeInfo?
    }

    private struct VolumeInfo: Decodable {
        var title: String?
        var subtitle: String?
        var authors: [String]?
        var publisher: String?
        var publishedDate: String?
        var pageCount: Int?
        var industryIdentifiers: [Identifier]?
        var imageLinks: ImageLinks?
        var description: String?

        struct Identifier: Decodable { var type: String?; var identifier: String? }
        struct ImageLinks: Decodable { var thumbnail: String? }
    }

    /// No `items` when nothing matched.
    static func decodeVolumes(_ data: Data) throws -> [EditionMetadata] {
        (try JSONDecoder().decode(VolumesAnswer.self, from: data).items ?? []).compactMap(edition)
    }

    /// An empty body is a 404.
    static func decodeVolume(_ data: Data) throws -> EditionMetadata? {
        guard !data.isEmpty else { return nil }
        return edition(try JSONDecoder().decode(Volume.self, from: data))
    }

    /// The volume id is the source's own key.
    private static func edition(_ volume: Volume) -> EditionMetadata? {
        guard let id = volume.id, let info = volume.volumeInfo, info.title != nil else { return nil }
        var edition = EditionMetadata(source: Self.sourceName)
        edition.editionKey = id
        edition.title = info.title
        edition.subtitle = info.subtitle
        edition.authors = info.authors.flatMap { $0.isEmpty ? nil : $0 }
        edition.publishers = info.publisher.map { [$0] }
        let identifiers = info.industryIdentifiers ?? []
        edition.isbn13 =
            identifiers.lazy.filter { $0.type == "ISBN_13" }.compactMap { $0.identifier.flatMap(ISBN.canonical13) }.first
        edition.isbn10 = identifiers.first { $0.type == "ISBN_10" }?.identifier
        edition.pages = info.pageCount.flatMap { $0 > 0 ? $0 : nil }
        edition.publishDate = info.publishedDate
        edition.year = info.publishedDate.flatMap(CatalogIndex.year)
        edition.description = info.description
        edition.coverURL = SourceEndpoint.coverURL(info.imageLinks?.thumbnail)
        return edition
    }
}

/// The anonymous quota is small.
public enum GoogleBooksDefaults: KeyedSourceDefaults {
    public static let baseURL = "https://www.googleapis.com"
    public static let requestsPerSecond = 1.0
    public static let concurrency = 2
}

/// The `googleBooks` section of the lookup stage's parameters.
public typealias GoogleBooksParameters = KeyedSourceParameters<GoogleBooksDefaults>
