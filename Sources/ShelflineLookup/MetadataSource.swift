import Foundation
import ShelflineCore

/// Somewhere edition metadata comes from. The stage chains sources in the configured order.
///
/// Methods throw `SourceFailure` when the source cannot answer; an answer with nothing in it is
/// an empty result, not an error.
public protocol MetadataSource: Sendable {
    /// Name written into `MatchResult.source` and `EditionMetadata.source`.
    var name: String { get }
    /// Remote sources' answers are kept in the persistent cache; local ones are fast enough not to.
    var isRemote: Bool { get }
    /// How many ISBNs one `editions(isbns:)` call should carry.
    var isbnBatchSize: Int { get }
    /// Editions for canonical ISBN-13s, keyed by the ISBN asked for; misses are absent.
    func editions(isbns: [String]) async throws -> [String: EditionMetadata]
    /// Candidate editions (or works) for a title and optional author, best-effort ordered.
    func candidates(title: String, author: String?, limit: Int) async throws -> [EditionMetadata]
    /// Editions by the source's own ids (the `editionKey` or `workKey` it writes), keyed by the id
    /// asked for; misses and ids of another shape are absent.
    func editions(ids: [String]) async throws -> [String: EditionMetadata]
    /// The schemes of a record's `identifiers` that hold this source's own ids, most specific
    /// first: the lookup asks `editions(ids:)` for the first one a record carries. None by default.
    var identifierSchemes: [String] { get }
    /// How many ids one `editions(ids:)` call should carry.
    var idBatchSize: Int { get }
    /// The failure every request would meet now, once the source knows it (e.g. found out of
    /// reach); nil while it may answer. Rows are then settled with it at once: no request, no task,
    /// no cache write. It may clear later in the run (a source that refused connections and whose
    /// probe, sent in the background, reached it again): later rows are asked again. Read once per
    /// chunk and phase, so it must be cheap and must not suspend (an actor hop per chunk cost
    /// seconds on a loaded machine).
    var standingFailure: SourceFailure? { get }
}

extension MetadataSource {
    public var standingFailure: SourceFailure? { nil }
    public func editions(ids: [String]) async throws -> [String: EditionMetadata] { [:] }
    public var identifierSchemes: [String] { [] }
    public var idBatchSize: Int { isbnBatchSize }
}

/// A source asked over HTTP (`ResilientHTTPClient`): the stage reads its counters for the report
/// and names its endpoint in warnings.
public protocol HTTPMetadataSource: MetadataSource {
    var client: ResilientHTTPClient { get }
    /// The base URL, for messages (never a key).
    var endpoint: String { get }
}

extension HTTPMetadataSource {
    public var isRemote: Bool { true }
    public var standingFailure: SourceFailure? { client.standingFailure() }
}

/// A metadata source as users add one: its name, its settings (a section of the lookup stage's
/// parameters, with defaults and ranges) and how a run makes it. Registered once, in
/// `MetadataSources.all`; the names `sources` and `--source` accept, the parameters' sections and
/// their ranges come from that list.
public protocol RegisteredSource: MetadataSource {
    associatedtype Settings: SourceSettings
    /// Its name in `sources`, `--source`, `match.source` and `metadata.source`.
    static var sourceName: String { get }
    /// The key of its settings in the lookup stage's parameters (`openLibrary`).
    static var section: String { get }
    /// The source for this run; nil when it is skipped (it logs one line saying why).
    static func make(_ settings: Settings, setup: SourceSetup) throws -> Self?
}

extension RegisteredSource {
    public var name: String { Self.sourceName }
}

/// The settings of one source: every member has a default, so `{}` (or no section) works.
public protocol SourceSettings: Codable, Sendable, Equatable {
    init()
    /// The allowed range of each bounded number, by key inside the section (`batchSize`).
    static var ranges: [String: ConfigLimits.Range] { get }
    /// Checks no range can state (a URL, one value against another); 78 naming `section.key`
    /// (`source` is the source's name, for messages).
    func validate(source: String, section: String, configPath: String) throws
    /// Makes file paths relative to pipeline.json absolute (`besideConfig`).
    mutating func resolvePaths(_ besideConfig: (String) -> String)
    /// How long the source's answers stay in the lookup cache, where its section says.
    var cacheLifetime: SourceCacheDays { get }
}

extension SourceSettings {
    public static var ranges: [String: ConfigLimits.Range] { [:] }
    public var cacheLifetime: SourceCacheDays { SourceCacheDays() }
    public func validate(source: String, section: String, configPath: String) throws {}
    public mutating func resolvePaths(_ besideConfig: (String) -> String) {}
}

/// A source's own cache lifetimes, in days (`cacheDays` and `negativeCacheDays` in its section);
/// nil: the lookup stage's.
public struct SourceCacheDays: Sendable, Equatable {
    public var cacheDays: Double?
    public var negativeCacheDays: Double?

    public init(cacheDays: Double? = nil, negativeCacheDays: Double? = nil) {
        self.cacheDays = cacheDays
        self.negativeCacheDays = negativeCacheDays
    }

    /// Their ranges, in a source's section as in the lookup stage's parameters.
    public static let ranges: [String: ConfigLimits.Range] = [
        "cacheDays": .init(exclusiveMinimum: 0, maximum: 36_500),
        "negativeCacheDays": .init(exclusiveMinimum: 0, maximum: 36_500),
    ]
}

/// What a source is made with besides its own settings.
public struct SourceSetup {
    public var configPath: String
    /// Drives pacing, backoff and the circuit breaker of HTTP sources.
    public var clock: PacingClock
    /// What every HTTP source sends as User-Agent (`openLibrary.userAgent`, which names the contact).
    public var userAgent: String
    /// Where a local source keeps its index.
    public var cacheDirectory: String
    public var log: Logfmt
    public var now: Date
    public var isCancelled: () -> Bool
    /// Shows what a source is doing before the first row (opening a large index takes a while).
    public var announce: (String) -> Void
}

/// Every metadata source, in the order help texts and docs list them: the one place a source is
/// registered.
public enum MetadataSources {
    public static let all: [any RegisteredSource.Type] = [
        CatalogSource.self, OpenLibrarySource.self, GoogleBooksSource.self, IsbndbSource.self,
    ]

    /// The names `sources` and `--source` accept.
    public static var names: [String] { all.map { $0.sourceName } }

    /// Each of `registry`'s sources' ranges under its section (`openLibrary.batchSize`).
    static func ranges(_ registry: [any RegisteredSource.Type]) -> [String: ConfigLimits.Range] {
        registry.reduce(into: [:]) { ranges, source in
            for (key, range) in source.settingsRanges { ranges["\(source.section).\(key)"] = range }
        }
    }
}

/// The operations on a source's settings that the lookup parameters need without knowing its type.
extension RegisteredSource {
    static var settingsRanges: [String: ConfigLimits.Range] { Settings.ranges }

    static func settings(in sections: [String: any SourceSettings]) -> Settings {
        sections[section] as? Settings ?? Settings()
    }

    static func decodeSettings(
        from container: KeyedDecodingContainer<LookupParameters.Key>, into sections: inout [String: any SourceSettings]
    ) throws {
        if let settings = try container.decodeIfPresent(Settings.self, forKey: LookupParameters.Key(section)) {
            sections[section] = settings
        }
    }

    static func encodeSettings(
        _ sections: [String: any SourceSettings], to container: inout KeyedEncodingContainer<LookupParameters.Key>
    ) throws {
        try container.encode(settings(in: sections), forKey: LookupParameters.Key(section))
    }

    static func cacheLifetime(in sections: [String: any SourceSettings]) -> SourceCacheDays {
        settings(in: sections).cacheLifetime
    }

    static func sameSettings(_ a: [String: any SourceSettings], _ b: [String: any SourceSettings]) -> Bool {
        settings(in: a) == settings(in: b)
    }

    static func validateSettings(_ sections: [String: any SourceSettings], configPath: String) throws {
        try settings(in: sections).validate(source: sourceName, section: section, configPath: configPath)
    }

    static func resolvePaths(in sections: inout [String: any SourceSettings], _ besideConfig: (String) -> String) {
        var settings = settings(in: sections)
        settings.resolvePaths(besideConfig)
        sections[section] = settings
    }

    /// This source for a run with `parameters`, or nil when it is skipped.
    static func make(from parameters: LookupParameters, setup: SourceSetup) throws -> (any MetadataSource)? {
        try make(parameters[Self.self], setup: setup)
    }
}
