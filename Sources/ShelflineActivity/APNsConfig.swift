import ShelflineCore

/// `pipeline.json`'s `apns` (each key in docs/push.md); absent: nothing is pushed. Here, not in ShelflinePush,
/// so that `shelfline run` checks it before an import without linking the HTTP/2 client.
public struct APNsConfig: Codable, Sendable, Equatable {
    public var environment: String?
    public var host: String?
    public var keyFile: String?
    public var keyId: String?
    public var teamId: String?
    public var bundleId: String?
    public var caFile: String?
    public var waitBudgetSeconds: Double?
    public var concurrency: Int?
    public var timeoutSeconds: Double?
    public var minimumUpdateIntervalSeconds: Double?
    public var maxUrgentPushesPerImport: Int?

    public init(
        environment: String? = nil, host: String? = nil, keyFile: String? = nil, keyId: String? = nil,
        teamId: String? = nil, bundleId: String? = nil, caFile: String? = nil, waitBudgetSeconds: Double? = nil,
        concurrency: Int? = nil, timeoutSeconds: Double? = nil, minimumUpdateIntervalSeconds: Double? = nil,
        maxUrgentPushesPerImport: Int? = nil
    ) {
        self.minimumUpdateIntervalSeconds = minimumUpdateIntervalSeconds
        self.maxUrgentPushesPerImport = maxUrgentPushesPerImport
        self.environment = environment
        self.host = host
        self.keyFile = keyFile
        self.keyId = keyId
        self.teamId = teamId
        self.bundleId = bundleId
        self.caFile = caFile
        self.waitBudgetSeconds = waitBudgetSeconds
        self.concurrency = concurrency
        self.timeoutSeconds = timeoutSeconds
    }

    /// Each number's documented range (docs/push.md): a duration beyond it would overflow a timer's
    /// nanoseconds (`timeoutSeconds: 1e300` would crash `send`).
    public static let ranges: [String: ConfigLimits.Range] = [
        "waitBudgetSeconds": .within(0, 86_400),
        "concurrency": .within(1, 1000),
        "timeoutSeconds": ConfigLimits.Range(exclusiveMinimum: 0, maximum: 3600),
        "minimumUpdateIntervalSeconds": .within(0, 3600),
        "maxUrgentPushesPerImport": .within(1, 100),
    ]

    /// `apns`, nil when absent; an unknown key, a wrong type or a number out of `ranges` is a `ConfigError`.
    public static func decode(_ section: JSONValue?, configPath: String) throws -> APNsConfig? {
        if let section { try ConfigLimits.check(section, ranges: ranges, keyPrefix: "apns", path: configPath) }
        return try PipelineConfig.section(APNsConfig.self, section, key: "apns", path: configPath)
    }
}
