/// `<workspace>/push/push-report.json`: what one `send` did. Every push planned ends in exactly one
/// of `delivered`, `dropped`, `rejected`, `deferred`, so they sum to `pushes`.
public struct PushReport: Codable, Sendable, Equatable {
    public var version = 1
    public var dryRun = false
    public var tokens = 0
    /// Snapshot × token that fits it.
    public var pushes = 0
    public var delivered = 0
    /// The token is gone (400 BadDeviceToken/DeviceTokenNotForTopic, 410).
    public var dropped = 0
    /// Malformed (413, other 400s).
    public var rejected = 0
    /// Left for the next run.
    public var deferred = 0
    /// By status (`"network"` when none came), retries included.
    public var answers: [String: Int] = [:]
    public var retries = 0
    public var providerTokenRenewals = 0
    /// Shortened.
    public var droppedTokens: [String] = []
    public var stoppedBecause: String?

    public init() {}

    public var summary: String {
        "push: \(pushes) due to \(tokens) token\(tokens == 1 ? "" : "s"): \(delivered) delivered, \(dropped) dropped (token gone), "
            + "\(rejected) rejected, \(deferred) left for the next run"
    }
}
