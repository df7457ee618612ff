import ShelflineCore

/// The local Open Library catalog: dump files indexed into SQLite in the workspace.
public struct CatalogSource: MetadataSource {
    public let index: CatalogIndex
    public var name: String { SourceKind.catalog.rawValue }
    public var isRemote: Bool { false }
    public var isbnBatchSize: Int { 500 }

    public init(index: CatalogIndex) { self.index = index }

    public func editions(isbns: [String]) async throws -> [String: EditionMetadata] {
        do {
            return try index.editions(isbns: isbns)
        } catch {
            throw SourceFailure.failed(source: name, reason: "\(error)")
        }
    }

    public func candidates(title: String, author: String?, limit: Int) async throws -> [EditionMetadata] {
        try await preparedCandidates(title: title, author: author, limit: limit).map(\.edition)
    }

    /// Candidates with their matcher-side normalisation, which the index keeps with cached editions.
    public func preparedCandidates(title: String, author: String?, limit: Int) async throws -> [Matcher.PreparedEdition] {
        do {
            return try index.preparedCandidates(title: title, author: author, limit: limit)
        } catch {
            throw SourceFailure.failed(source: name, reason: "\(error)")
        }
    }
}
