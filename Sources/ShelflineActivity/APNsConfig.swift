import ShelflineCore

/// APNs settings for `shelfline-push` (docs/push.md): `pipeline.json`'s `apns`. Absent: nothing is
/// pushed. Here rather than in ShelflinePush because two executables read it: `shelfline-push`
/// delivers with it and `shelfline run` checks it before an import starts (without linking the
/// HTTP/2 client), so a typo is a config error at once rather than a push failing after the import.
public struct APNsConfig: Codable, Sendable, Equatable {
    /// `sandbox` or `production`: picks Apple's host.
    public var environment: String?
    /// `https://host[:port]` overriding the environment's host (tests, a proxy).
    public var host: String?
    /// The .p8 signing key (PKCS#8 P-256), mode 0600.
    public var keyFile: String?
    public var keyId: String?
    public var teamId: String?
    /// The app's bundle id; the topic is `<bundleId>.push-type.liveactivity`.
    public var bundleId: String?
    /// Extra PEM certificate(s) to trust for `host` (a test server, a TLS-intercepting proxy).
    public var caFile: String?
    /// Longest total wait for 429/5xx retries in one run before leaving the rest for the next.
    public var waitBudgetSeconds: Double?
    /// Pushes in flight at once (concurrent HTTP/2 streams).
    public var concurrency: Int?
    public var timeoutSeconds: Double?
    /// While an import runs: the least time between two progress updates (priority 5) to one token.
    public var minimumUpdateIntervalSeconds: Double?
    /// While an import runs: the most priority-10 pushes one token gets per import; beyond it, 5.
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

    /// The documented range of each number (docs/push.md, docs/pipeline.schema.json); outside it,
    /// a `ConfigError` naming `apns.<key>` (78). A duration beyond its range would overflow the
    /// nanoseconds a timer takes (`timeoutSeconds: 1e300` would crash `send`).
    public static let ranges: [String: ConfigLimits.Range] = [
        "waitBudgetSeconds": .within(0, 86_400),
        "concurrency": .within(1, 1000),
        "timeoutSeconds": ConfigLimits.Range(exclusiveMinimum: 0, maximum: 3600),
        "minimumUpdateIntervalSeconds": .within(0, 3600),
        "maxUrgentPushesPerImport": .within(1, 100),
    ]

    /// `apns` as the config file at `configPath` holds it, nil when absent; decoded strictly: an
    /// unknown key, a wrong type or a number out of `ranges` is a `ConfigError` naming `apns.…`.
    public static func decode(_ section: JSONValue?, configPath: String) throws -> APNsConfig? {
        if let section { try ConfigLimits.check(section, ranges: ranges, keyPrefix: "apns", path: configPath) }
        return try PipelineConfig.section(APNsConfig.self, section, key: "apns", path: configPath)
    }
}
