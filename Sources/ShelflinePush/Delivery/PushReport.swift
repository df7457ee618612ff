/// `<workspace>/push/push-report.json`: what one `send` did. Every push it planned ends in exactly
/// one of `delivered`, `dropped`, `rejected`, `deferred`, so they sum to `pushes`.
public struct PushReport: Codable, Sendable, Equatable {
    public var version = 1
    public var dryRun = false
    /// Registered tokens.
    public var tokens = 0
    /// Pushes due this run (snapshot × token that fits it).
    public var pushes = 0
    /// APNs answered 200.
    public var delivered = 0
    /// Not sent or refused because the token is gone (400 BadDeviceToken/DeviceTokenNotForTopic, 410).
    public var dropped = 0
    /// Refused as malformed (413, other 400s): a bug, logged, never retried.
    public var rejected = 0
    /// Left for the next run (429/5xx beyond the wait budget, no network, provider token refused).
    public var deferred = 0
    /// Every answer by status (`"network"` when none came), retries included.
    public var answers: [String: Int] = [:]
    public var retries = 0
    public var providerTokenRenewals = 0
    /// Tokens removed from the registry (shortened).
    public var droppedTokens: [String] = []
    /// Why the run stopped early, if it did.
    public var stoppedBecause: String?

    public init() {}

    /// One line for stdout.
    public var summary: String {
        "push: \(pushes) due to \(tokens) token\(tokens == 1 ? "" : "s"): \(delivered) delivered, \(dropped) dropped (token gone), "
            + "\(rejected) rejected, \(deferred) left for the next run"
    }
}
