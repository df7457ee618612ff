import Foundation
import ShelflineCore

/// Somewhere edition metadata comes from; the stage chains sources in the configured order.
/// Throws `SourceFailure` when it cannot answer; an empty answer is no error.
public protocol MetadataSource: Sendable {
    /// Written into `MatchResult.source` and `EditionMetadata.source`.
    var name: String { get }
    /// Remote answers are kept in the persistent cache; local ones are fast enough not to be.
    var isRemote: Bool { get }
    var isbnBatchSize: Int { get }
    /// Keyed by the ISBN-13 asked for; misses are absent.
    func editions(isbns: [String]) async throws -> [String: EditionMetadata]
    /// Editions (or works) for a title and optional author, best first.
    func candidates(title: String, author: String?, limit: Int) async throws -> [EditionMetadata]
    /// By the source's own ids (the `editionKey` or `workKey` it writes); misses and other shapes absent.
    func editions(ids: [String]) async throws -> [String: EditionMetadata]
    /// Schemes of a record's `identifiers` holding this source's ids, most specific first.
    var identifierSchemes: [String] { get }
    var idBatchSize: Int { get }
    /// The failure every request would meet now (rows settle at once); may clear later. Must not
    /// suspend: an actor hop per chunk cost seconds on a loaded machine.
    var standingFailure: SourceFailure? { get }
}

extension MetadataSource {
    public var standingFailure: SourceFailure? { nil }
    public func editions(ids: [String]) async throws -> [String: EditionMetadata] { [:] }
    public var identifierSchemes: [String] { [] }
    public var idBatchSize: Int { isbnBatchSize }
}

/// A source asked over HTTP: the stage reports its counters and names its endpoint in warnings.
public protocol HTTPMetadataSource: MetadataSource {
    var client: ResilientHTTPClient { get }
    var baseURL: URL { get }
}

extension HTTPMetadataSource {
    /// For messages (never a key).
    public var endpoint: String { baseURL.absoluteString }
    public var isRemote: Bool { true }
    public var standingFailure: SourceFailure? { client.standingFailure() }
}

/// A metadata source as users add one, registered once in `MetadataSources.all`.
public protocol RegisteredSource: MetadataSource {
    associatedtype Settings: SourceSettings
    /// Its name in `sources`, `--source`, `match.source` and `metadata.source`.
    static var sourceName: String { get }
    /// The key of its settings in the lookup stage's parameters (`openLibrary`).
    static var section: String { get }
    /// Nil when skipped (it logs one line saying why).
    static func make(_ settings: Settings, setup: SourceSetup) throws -> Self?
}

extension RegisteredSource {
    public var name: String { Self.sourceName }
}

/// The settings of one source: every member has a default, so `{}` (or no section) works.
public protocol SourceSettings: ConfigDefaults, Sendable, Equatable {
    /// By key inside the section (`batchSize`).
    static var ranges: [String: ConfigLimits.Range] { get }
    /// Checks no range can state (a URL, one value against another).
    func validate(source: String, section: String, configPath: String) throws
    /// Makes file paths relative to pipeline.json absolute.
    mutating func resolvePaths(_ besideConfig: (String) -> String)
    /// The source's own cache lifetimes in days; nil: the lookup stage's.
    var cacheDays: Double? { get }
    var negativeCacheDays: Double? { get }
}

extension SourceSettings {
    public static var ranges: [String: ConfigLimits.Range] { [:] }
    public var cacheDays: Double? { nil }
    public var negativeCacheDays: Double? { nil }
    public func validate(source: String, section: String, configPath: String) throws {}
    public mutating func resolvePaths(_ besideConfig: (String) -> String) {}
}

/// The ranges of a source's own `cacheDays` and `negativeCacheDays`.
public enum SourceCacheDays {
    public static let ranges: [String: ConfigLimits.Range] = [
        "cacheDays": .init(exclusiveMinimum: 0, maximum: 36_500),
        "negativeCacheDays": .init(exclusiveMinimum: 0, maximum: 36_500),
    ]
}

/// What a source is made with besides its own settings.
public struct SourceSetup {
    public var configPath: String
    public var clock: PacingClock
    /// Every HTTP source sends `openLibrary.userAgent`, which names the contact.
    public var userAgent: String
    public var cacheDirectory: String
    public var log: Logfmt
    public var now: Date
    public var isCancelled: () -> Bool
    /// Shows what a source is doing before the first row (opening a large index takes a while).
    public var announce: (String) -> Void
}

/// Every metadata source, in the order help and docs list them: the one place to register one.
public enum MetadataSources {
    public static let all: [any RegisteredSource.Type] = [
        CatalogSource.self, OpenLibrarySource.self, GoogleBooksSource.self, IsbndbSource.self,
    ]

    public static var names: [String] { all.map { $0.sourceName } }

    /// Under each section (`openLibrary.batchSize`).
    static func ranges(_ registry: [any RegisteredSource.Type]) -> [String: ConfigLimits.Range] {
        registry.reduce(into: [:]) { ranges, source in
            for (key, range) in source.settingsRanges { ranges["\(source.section).\(key)"] = range }
        }
    }
}

/// What the lookup parameters do with a source's settings without knowing its type.
extension RegisteredSource {
    static var settingsRanges: [String: ConfigLimits.Range] { Settings.ranges }

    static func settings(in sections: [String: any SourceSettings]) -> Settings {
        sections[section] as? Settings ?? Settings()
    }

    static func decodeSettings(
        from container: KeyedDecodingContainer<AnyKey>, into sections: inout [String: any SourceSettings]
    ) throws {
        if let settings = try container.decodeIfPresent(Settings.self, forKey: AnyKey(section)) {
            sections[section] = settings
        }
    }

    static func resolvePaths(in sections: inout [String: any SourceSettings], _ besideConfig: (String) -> String) {
        var settings = settings(in: sections)
        settings.resolvePaths(besideConfig)
        sections[section] = settings
    }

    static func make(from parameters: LookupParameters, setup: SourceSetup) throws -> (any MetadataSource)? {
        try make(parameters[Self.self], setup: setup)
    }
}
