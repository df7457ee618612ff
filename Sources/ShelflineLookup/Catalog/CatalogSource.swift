import Foundation
import ShelflineCore

/// The local Open Library catalog: dump files indexed into SQLite, one connection per core.
public struct CatalogSource: RegisteredSource {
    public static let sourceName = "catalog"
    /// The dump files are the `catalog` member itself.
    public static let section = "catalog"
    public let index: CatalogIndex
    private let readers: ReaderPool
    public var isRemote: Bool { false }
    public var isbnBatchSize: Int { 500 }
    public var searchConcurrency: Int { readers.count }

    /// On a small catalog the hand-offs between connections cost more than they save.
    static let editionsForParallelSearch = 100_000

    public init(index: CatalogIndex) {
        self.index = index
        let cores =
            index.stats.editions >= Self.editionsForParallelSearch
            ? max(1, min(4, ProcessInfo.processInfo.activeProcessorCount)) : 1
        let more = (1..<cores).compactMap { _ in try? CatalogIndex(path: index.path, built: false, sharing: index) }
        readers = ReaderPool([index] + more)
    }

    public static func make(_ settings: CatalogDumps, setup: SourceSetup) throws -> CatalogSource? {
        guard !settings.paths.isEmpty else {
            throw LookupError.invalidParameter(
                configPath: setup.configPath, key: "catalog",
                expected: "the catalog source needs dump files (set it, or pass --catalog FILE)")
        }
        setup.announce("(opening the catalog index)")
        let index = try CatalogIndex.open(
            dumps: settings.paths, cacheDirectory: setup.cacheDirectory, log: setup.log, now: setup.now,
            isCancelled: setup.isCancelled)
        return CatalogSource(index: index)
    }

    /// Split over the connections: on one, the ISBN half of a chunk left the other core idle.
    public func editions(isbns: [String]) async throws -> [String: EditionMetadata] {
        let parts = min(readers.count, max(1, isbns.count / Self.isbnsPerPart))
        let size = (isbns.count + parts - 1) / max(1, parts)
        do {
            guard parts > 1 else { return try index.editions(isbns: isbns) }
            return try await withThrowingTaskGroup(of: [String: EditionMetadata].self) { group in
                for start in stride(from: 0, to: isbns.count, by: size) {
                    let part = Array(isbns[start..<min(start + size, isbns.count)])
                    group.addTask { [readers] in try readers.with { try $0.editions(isbns: part) } }
                }
                var found: [String: EditionMetadata] = [:]
                for try await part in group { found.merge(part) { first, _ in first } }
                return found
            }
        } catch {
            throw SourceFailure.failed(source: name, reason: "\(error)")
        }
    }

    /// The index finds editions by key, not by their work.
    public var identifierSchemes: [String] { ["openlibrary-edition"] }

    public func editions(ids: [String]) async throws -> [String: EditionMetadata] {
        try reading { try $0.editions(keys: ids) }
    }

    static let isbnsPerPart = 50

    /// Adds the accepted editions' descriptions, which candidates are loaded without.
    func described(_ decisions: [MatchDecision]) async throws -> [MatchDecision] {
        try decisions.map { decision in
            guard case .accept(let edition, let score) = decision else { return decision }
            return .accept(try reading { try $0.described(edition) }, score: score)
        }
    }

    /// Without their works' descriptions.
    public func candidates(title: String, author: String?, limit: Int) async throws -> [EditionMetadata] {
        try reading { try $0.preparedCandidates(title: title, author: author, limit: limit) }.map(\.edition)
    }

    func searchHits(title: String, terms: SearchTerms, limit: Int) async throws -> [CatalogIndex.SearchHit] {
        try reading { try $0.searchHits(title: title, terms: terms, limit: limit) }
    }

    func prepared(_ hits: [CatalogIndex.SearchHit]) throws -> [Matcher.PreparedEdition] {
        try reading { try $0.prepared(hits) }
    }

    private func reading<T>(_ body: (CatalogIndex) throws -> T) throws -> T {
        do {
            return try readers.with(body)
        } catch {
            throw SourceFailure.failed(source: name, reason: "\(error)")
        }
    }
}

/// The catalog's dump files, written as the list itself (`"catalog": ["editions.txt.gz"]`).
public struct CatalogDumps: SourceSettings {
    public var paths: [String] = []

    public init() {}

    public init(from decoder: any Decoder) throws { paths = try decoder.singleValueContainer().decode([String].self) }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(paths)
    }
}

/// Connections lent one caller at a time; when all are lent, the first is shared.
final class ReaderPool: @unchecked Sendable {
    private let lock = NSLock()
    private let all: [CatalogIndex]
    private var free: [CatalogIndex]
    var count: Int { all.count }

    init(_ readers: [CatalogIndex]) {
        all = readers
        free = readers
    }

    func with<T>(_ body: (CatalogIndex) throws -> T) rethrows -> T {
        let lent = lock.withLock { free.popLast() }
        defer { if let lent { lock.withLock { free.append(lent) } } }
        return try body(lent ?? all[0])
    }
}

extension CatalogDumps {
    public mutating func resolvePaths(_ besideConfig: (String) -> String) { paths = paths.map(besideConfig) }
}
