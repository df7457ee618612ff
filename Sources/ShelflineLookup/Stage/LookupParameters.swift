import Foundation
import ShelflineCore

/// The lookup stage's `parameters` in `pipeline.json`; every field has a default, so `{}` works.
public struct LookupParameters: Codable, Sendable, Equatable {
    /// Sources in the order they are asked. When the config names none: the local catalog when one
    /// is configured (or given with `--catalog`), then the Open Library API.
    public var sources: [String] {
        get { configuredSources ?? Self.defaultSources(catalogConfigured: !catalog.isEmpty) }
        set { configuredSources = newValue }
    }
    /// `sources` as pipeline.json names it; nil for the default.
    private var configuredSources: [String]?
    /// Catalog dump files (editions, works, authors; gzip or plain), relative to pipeline.json.
    public var catalog: [String] = []
    public var openLibrary = OpenLibraryParameters()
    public var googleBooks = GoogleBooksParameters()
    public var isbndb = IsbndbParameters()
    /// Days a found answer stays in the cache, and a negative one.
    public var cacheDays: Double = 30
    public var negativeCacheDays: Double = 3
    /// Candidates asked of a source per title/author search.
    public var searchLimit = 20
    /// Records processed between output flush points (bounds memory).
    public var chunkSize = 500
    public var match = MatchParameters()

    public init() {}

    /// The default `sources`: enrichment is on, the local catalog first when there is one.
    public static func defaultSources(catalogConfigured: Bool) -> [String] {
        (catalogConfigured ? [SourceKind.catalog] : []).map(\.rawValue) + [SourceKind.openlibrary.rawValue]
    }

    enum CodingKeys: String, CodingKey {
        case configuredSources = "sources"
        case catalog, openLibrary, googleBooks, isbndb, cacheDays, negativeCacheDays, searchLimit, chunkSize, match
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        configuredSources = try container.decodeIfPresent([String].self, forKey: .configuredSources)
        catalog = try container.decodeIfPresent([String].self, forKey: .catalog) ?? catalog
        openLibrary = try container.decodeIfPresent(OpenLibraryParameters.self, forKey: .openLibrary) ?? openLibrary
        googleBooks = try container.decodeIfPresent(GoogleBooksParameters.self, forKey: .googleBooks) ?? googleBooks
        isbndb = try container.decodeIfPresent(IsbndbParameters.self, forKey: .isbndb) ?? isbndb
        cacheDays = try container.decodeIfPresent(Double.self, forKey: .cacheDays) ?? cacheDays
        negativeCacheDays = try container.decodeIfPresent(Double.self, forKey: .negativeCacheDays) ?? negativeCacheDays
        searchLimit = try container.decodeIfPresent(Int.self, forKey: .searchLimit) ?? searchLimit
        chunkSize = try container.decodeIfPresent(Int.self, forKey: .chunkSize) ?? chunkSize
        match = try container.decodeIfPresent(MatchParameters.self, forKey: .match) ?? match
    }

    /// Rejects values that cannot work, naming the key (each number's range: `ranges`, in
    /// LookupStageContract.swift, checked before decoding).
    public func validate(configPath: String) throws {
        func check(_ ok: Bool, _ key: String, _ expected: String) throws {
            if !ok { throw LookupError.invalidParameter(configPath: configPath, key: key, expected: expected) }
        }
        for (index, name) in sources.enumerated() where SourceKind(rawValue: name) == nil {
            throw LookupError.unknownSource(name: name, key: "\(configPath): key 'stages[lookup].parameters.sources[\(index)]'")
        }
        try check(!sources.isEmpty, "sources", "at least one source")
        try openLibrary.validate(configPath: configPath)
        if sources.contains(SourceKind.googlebooks.rawValue) {
            _ = try SourceEndpoint.baseURL(
                googleBooks.baseURL, source: SourceKind.googlebooks.rawValue, section: "googleBooks",
                configPath: configPath)
        }
    }
}

/// Settings of the Open Library HTTP source.
public struct OpenLibraryParameters: Codable, Sendable, Equatable {
    public var baseURL = "https://openlibrary.org"
    public var userAgent = "Shelfline/0.1 (set stages.lookup.parameters.openLibrary.userAgent to name your contact)"
    /// Requests in flight at once.
    public var concurrency = 5
    /// Requests per second, spread evenly (Open Library allows about 3).
    public var requestsPerSecond = 3.0
    /// ISBNs per `/api/books` request.
    public var batchSize = 50
    public var timeoutSeconds = 10.0
    /// Retries per request after the first attempt.
    public var maxRetries = 4
    public var backoffBaseSeconds = 0.5
    public var backoffMaxSeconds = 20.0
    /// Total seconds all backoff sleeps of one run may add up to; then failing requests give up.
    public var waitBudgetSeconds = 120.0
    /// Consecutive failed attempts that open the circuit breaker, and how long it stays open.
    public var breakerThreshold = 5
    public var breakerCooldownSeconds = 30.0
    /// The largest answer read, in bytes; a longer one is cut off while it streams in and the
    /// attempt fails like a malformed answer (retried, then the rows are `notEnriched`).
    public var maxResponseBytes = 4_194_304

    public init() {}

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        baseURL = try container.decodeIfPresent(String.self, forKey: .baseURL) ?? baseURL
        userAgent = try container.decodeIfPresent(String.self, forKey: .userAgent) ?? userAgent
        concurrency = try container.decodeIfPresent(Int.self, forKey: .concurrency) ?? concurrency
        requestsPerSecond = try container.decodeIfPresent(Double.self, forKey: .requestsPerSecond) ?? requestsPerSecond
        batchSize = try container.decodeIfPresent(Int.self, forKey: .batchSize) ?? batchSize
        timeoutSeconds = try container.decodeIfPresent(Double.self, forKey: .timeoutSeconds) ?? timeoutSeconds
        maxRetries = try container.decodeIfPresent(Int.self, forKey: .maxRetries) ?? maxRetries
        backoffBaseSeconds = try container.decodeIfPresent(Double.self, forKey: .backoffBaseSeconds) ?? backoffBaseSeconds
        backoffMaxSeconds = try container.decodeIfPresent(Double.self, forKey: .backoffMaxSeconds) ?? backoffMaxSeconds
        waitBudgetSeconds = try container.decodeIfPresent(Double.self, forKey: .waitBudgetSeconds) ?? waitBudgetSeconds
        breakerThreshold = try container.decodeIfPresent(Int.self, forKey: .breakerThreshold) ?? breakerThreshold
        breakerCooldownSeconds =
            try container.decodeIfPresent(Double.self, forKey: .breakerCooldownSeconds) ?? breakerCooldownSeconds
        maxResponseBytes = try container.decodeIfPresent(Int.self, forKey: .maxResponseBytes) ?? maxResponseBytes
    }

    func validate(configPath: String) throws {
        func check(_ ok: Bool, _ key: String, _ expected: String) throws {
            if !ok { throw LookupError.invalidParameter(configPath: configPath, key: "openLibrary.\(key)", expected: expected) }
        }
        try check(backoffMaxSeconds >= backoffBaseSeconds, "backoffBaseSeconds", "0 ≤ backoffBaseSeconds ≤ backoffMaxSeconds")
        _ = try SourceEndpoint.baseURL(
            baseURL, source: SourceKind.openlibrary.rawValue, section: "openLibrary", configPath: configPath)
    }
}

/// Thresholds of the matcher (see `Matcher`).
public struct MatchParameters: Codable, Sendable, Equatable {
    public var titleThreshold = 0.9
    public var authorThreshold = 0.85
    public var margin = 0.1

    public init() {}

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        titleThreshold = try container.decodeIfPresent(Double.self, forKey: .titleThreshold) ?? titleThreshold
        authorThreshold = try container.decodeIfPresent(Double.self, forKey: .authorThreshold) ?? authorThreshold
        margin = try container.decodeIfPresent(Double.self, forKey: .margin) ?? margin
    }

    var matcher: Matcher {
        var matcher = Matcher()
        matcher.titleThreshold = titleThreshold
        matcher.authorThreshold = authorThreshold
        matcher.margin = margin
        return matcher
    }
}
