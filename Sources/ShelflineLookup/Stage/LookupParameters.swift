import Foundation
import ShelflineCore

/// The lookup stage's `parameters` in `pipeline.json`; every field has a default, so `{}` works.
/// Each registered source has its settings under its own section.
public struct LookupParameters: Decodable, Sendable {
    /// Asked in this order; by default the local catalog first when there is one, then Open Library.
    public var sources: [String] {
        get { configuredSources ?? (catalog.isEmpty ? [] : [CatalogSource.sourceName]) + [OpenLibrarySource.sourceName] }
        set { configuredSources = newValue }
    }
    private var configuredSources: [String]?
    /// A section not given has its defaults.
    private var sections: [String: any SourceSettings] = [:]
    public private(set) var registry: [any RegisteredSource.Type] = MetadataSources.all
    public var cacheDays: Double = 30
    public var negativeCacheDays: Double = 3
    /// Candidates asked of a source per title/author search.
    public var searchLimit = 20
    /// Records between output flush points (bounds memory).
    public var chunkSize = 500
    public var match = MatchParameters()

    public init() {}

    public subscript<Source: RegisteredSource>(_ source: Source.Type) -> Source.Settings {
        get { Source.settings(in: sections) }
        set { sections[Source.section] = newValue }
    }

    /// Catalog dump files, relative to pipeline.json.
    public var catalog: [String] {
        get { self[CatalogSource.self].paths }
        set { self[CatalogSource.self].paths = newValue }
    }

    /// The fixed members; each source's section is under its own `AnyKey`.
    enum CodingKeys: String, CodingKey { case sources, cacheDays, negativeCacheDays, searchLimit, chunkSize, match }

    /// Ranges checked and sections decoded for `registry`'s sources; `validate` comes after paths
    /// are resolved.
    public static func decoded(
        from config: PipelineConfig, path: String, registry: [any RegisteredSource.Type] = MetadataSources.all
    ) throws -> LookupParameters {
        try config.parameters(
            for: .lookup, as: LookupParameters.self, path: path, ranges: ranges(for: registry),
            userInfo: [.metadataSources: registry])
    }

    public func registered(_ name: String) -> (any RegisteredSource.Type)? {
        registry.first { $0.sourceName == name }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        configuredSources = try container.decodeIfPresent([String].self, forKey: .sources)
        registry = decoder.userInfo[.metadataSources] as? [any RegisteredSource.Type] ?? registry
        let sectionContainer = try decoder.container(keyedBy: AnyKey.self)
        for source in registry { try source.decodeSettings(from: sectionContainer, into: &sections) }
        cacheDays = try container.decodeIfPresent(Double.self, forKey: .cacheDays) ?? cacheDays
        negativeCacheDays = try container.decodeIfPresent(Double.self, forKey: .negativeCacheDays) ?? negativeCacheDays
        searchLimit = try container.decodeIfPresent(Int.self, forKey: .searchLimit) ?? searchLimit
        chunkSize = try container.decodeIfPresent(Int.self, forKey: .chunkSize) ?? chunkSize
        match = try container.decodeIfPresent(MatchParameters.self, forKey: .match) ?? match
    }

    /// In seconds: each source's own, else the stage's.
    public var cacheLifetimes: [String: LookupCache.Lifetime] {
        MetadataSources.all.reduce(into: [:]) { lifetimes, source in
            let own = source.settings(in: sections)
            lifetimes[source.sourceName] = LookupCache.Lifetime(
                positive: (own.cacheDays ?? cacheDays) * 86_400, negative: (own.negativeCacheDays ?? negativeCacheDays) * 86_400)
        }
    }

    mutating func resolvePaths(_ besideConfig: (String) -> String) {
        for source in registry { source.resolvePaths(in: &sections, besideConfig) }
    }

    /// What no range can check (ranges are checked before decoding).
    public func validate(configPath: String) throws {
        for (index, name) in sources.enumerated() where registered(name) == nil {
            throw LookupError.invalidParameter(
                configPath: configPath, key: "sources[\(index)]",
                expected: "unknown metadata source '\(name)', expected one of \(MetadataSources.names.joined(separator: ", "))")
        }
        if sources.isEmpty {
            throw LookupError.invalidParameter(configPath: configPath, key: "sources", expected: "at least one source")
        }
        for source in registry {
            try source.settings(in: sections).validate(source: source.sourceName, section: source.section, configPath: configPath)
        }
    }
}

extension CodingUserInfoKey {
    /// The sources `LookupParameters` decode sections for (absent: `MetadataSources.all`).
    public static let metadataSources = CodingUserInfoKey(rawValue: "shelfline.metadataSources")!
}

/// Settings of the Open Library HTTP source.
public struct OpenLibraryParameters: SourceSettings {
    public var baseURL = "https://openlibrary.org"
    public var userAgent = "Shelfline/0.1 (set stages.lookup.parameters.openLibrary.userAgent to name your contact)"
    public var concurrency = 5
    /// Open Library allows about 3.
    public var requestsPerSecond = 3.0
    public var batchSize = 50
    public var timeoutSeconds = 10.0
    public var maxRetries = 4
    public var backoffBaseSeconds = 0.5
    public var backoffMaxSeconds = 20.0
    /// All backoff sleeps of one run; then failing requests give up.
    public var waitBudgetSeconds = 120.0
    public var breakerThreshold = 5
    public var breakerCooldownSeconds = 30.0
    /// A longer answer is cut off while it streams in and fails like a malformed one.
    public var maxResponseBytes = 4_194_304
    public var cacheDays: Double?
    public var negativeCacheDays: Double?

    public init() {}

    public static let ranges: [String: ConfigLimits.Range] = SourceCacheDays.ranges.merging([
        "concurrency": .atLeast(1), "requestsPerSecond": .within(0.01, 1000), "batchSize": .within(1, 1000),
        "timeoutSeconds": .init(exclusiveMinimum: 0, maximum: 3600), "maxRetries": .atLeast(0),
        "backoffBaseSeconds": .within(0, 86_400), "backoffMaxSeconds": .within(0, 86_400),
        "waitBudgetSeconds": .within(0, 86_400), "breakerThreshold": .atLeast(1),
        "breakerCooldownSeconds": .within(0, 86_400), "maxResponseBytes": .atLeast(1024),
    ]) { own, _ in own }

    public func validate(source: String, section: String, configPath: String) throws {
        guard backoffMaxSeconds >= backoffBaseSeconds else {
            throw LookupError.invalidParameter(
                configPath: configPath, key: "\(section).backoffBaseSeconds",
                expected: "0 ≤ backoffBaseSeconds ≤ backoffMaxSeconds")
        }
        _ = try SourceEndpoint.baseURL(baseURL, source: source, section: section, configPath: configPath)
    }
}

/// Thresholds of the matcher.
public struct MatchParameters: ConfigDefaults, Sendable, Equatable {
    public var titleThreshold = 0.9
    public var authorThreshold = 0.85
    public var margin = 0.1

    public init() {}

    /// `titleThreshold` and `margin` are read (configurations keep loading) but decide nothing:
    /// titles are compared by meaning, and a margin cannot tell a sequel from a typo.
    var matcher: Matcher { Matcher(authorThreshold: authorThreshold) }
}
