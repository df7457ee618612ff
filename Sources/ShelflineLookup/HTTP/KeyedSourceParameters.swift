import ShelflineCore

/// The defaults that tell one keyed HTTP source's settings from another's.
public protocol KeyedSourceDefaults: Sendable {
    static var baseURL: String { get }
    static var requestsPerSecond: Double { get }
    static var concurrency: Int { get }
}

/// The settings of an HTTP source asked with an API key (Google Books, ISBNdb): one shape, one
/// decoder and one table of ranges for all of them; each source names its defaults.
public struct KeyedSourceParameters<Defaults: KeyedSourceDefaults>: SourceSettings {
    public var baseURL = Defaults.baseURL
    public var apiKeyFile: String?
    public var requestsPerSecond = Defaults.requestsPerSecond
    public var concurrency = Defaults.concurrency
    public var timeoutSeconds = 10.0
    public var maxRetries = 3
    public var maxResponseBytes = 4_194_304
    public var cacheDays: Double?
    public var negativeCacheDays: Double?

    public init() {}

    public static var ranges: [String: ConfigLimits.Range] {
        SourceCacheDays.ranges.merging([
            "requestsPerSecond": .within(0.01, 50), "concurrency": .within(1, 16), "timeoutSeconds": .within(1, 300),
            "maxRetries": .within(0, 10), "maxResponseBytes": .within(1024, 67_108_864),
        ]) { own, _ in own }
    }

    public func validate(source: String, section: String, configPath: String) throws {
        _ = try SourceEndpoint.baseURL(baseURL, source: source, section: section, configPath: configPath)
    }

    public mutating func resolvePaths(_ besideConfig: (String) -> String) { apiKeyFile = apiKeyFile.map(besideConfig) }

    /// Backoff, wait budget and breaker are Open Library's defaults.
    func policy(userAgent: String, quotaStatuses: Set<Int>) -> HTTPPolicy {
        var policy = HTTPPolicy(OpenLibraryParameters())
        policy.concurrency = concurrency
        policy.requestsPerSecond = requestsPerSecond
        policy.timeoutSeconds = timeoutSeconds
        policy.maxRetries = maxRetries
        policy.maxResponseBytes = maxResponseBytes
        policy.userAgent = userAgent
        policy.quotaStatuses = quotaStatuses
        return policy
    }
}
