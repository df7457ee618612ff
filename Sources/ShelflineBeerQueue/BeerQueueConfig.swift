import ShelflineCore

/// The Flying Saucer beer-queue settings: `pipeline.json`'s `beerQueue` (Core keeps it as JSON;
/// only this module reads it).
public struct BeerQueueConfig: Codable, Sendable, Equatable {
    /// `https://…` origin serving `memberQueues.php`.
    public var host: String?
    /// Credentials file (mode 0600) holding the session cookie.
    public var credentialsFile: String?
    public var memberId: String?
    public var storeId: String?
    public var storeLocation: String?
    /// Periodic updates allowed per hour (user-triggered ones do not count).
    public var maxUpdatesPerHour: Int?
    /// Minutes after which a snapshot counts as stale.
    public var staleAfterMinutes: Int?
    /// Visitor mode: no activity at all.
    public var visitor: Bool?
    public var timeoutSeconds: Double?

    /// Every setting absent.
    public init() {}

    /// The allowed range of each bounded number (`docs/pipeline.schema.json` states the same; tests keep them equal).
    public static let ranges: [String: ConfigLimits.Range] = [
        "maxUpdatesPerHour": .atLeast(0), "staleAfterMinutes": .within(1, 525_600),
        "timeoutSeconds": .init(exclusiveMinimum: 0, maximum: 3600),
    ]

    /// `beerQueue` as the config file at `configPath` holds it (absent: every setting absent),
    /// decoded strictly: a number out of its range, an unknown key or a wrong type is a
    /// `ConfigError` naming `beerQueue.…`.
    public static func decode(_ section: JSONValue?, configPath: String) throws -> BeerQueueConfig {
        if let section { try ConfigLimits.check(section, ranges: ranges, keyPrefix: "beerQueue", path: configPath) }
        return try PipelineConfig.section(BeerQueueConfig.self, section, key: "beerQueue", path: configPath) ?? BeerQueueConfig()
    }
}
