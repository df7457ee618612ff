import ShelflineCore

/// `pipeline.json`'s `beerQueue` (Core keeps it as JSON; only this module reads it).
public struct BeerQueueConfig: Codable, Sendable, Equatable {
    /// `https://…` origin serving `memberQueues.php`.
    public var host: String?
    /// Mode 0600, holding the session cookie.
    public var credentialsFile: String?
    public var memberId: String?
    public var storeId: String?
    public var storeLocation: String?
    /// User-triggered updates do not count.
    public var maxUpdatesPerHour: Int?
    public var staleAfterMinutes: Int?
    /// No activity at all.
    public var visitor: Bool?
    public var timeoutSeconds: Double?

    /// `docs/pipeline.schema.json` states the same; tests keep them equal.
    public static let ranges: [String: ConfigLimits.Range] = [
        "maxUpdatesPerHour": .atLeast(0), "staleAfterMinutes": .within(1, 525_600),
        "timeoutSeconds": .init(exclusiveMinimum: 0, maximum: 3600),
    ]

    /// Decoded strictly: an out-of-range number, unknown key or wrong type is a `ConfigError` naming `beerQueue.…`.
    public static func decode(_ section: JSONValue?, configPath: String) throws -> BeerQueueConfig {
        if let section { try ConfigLimits.check(section, ranges: ranges, keyPrefix: "beerQueue", path: configPath) }
        return try PipelineConfig.section(BeerQueueConfig.self, section, key: "beerQueue", path: configPath) ?? BeerQueueConfig()
    }
}
