/// `<workspace>/push/push-report.json`: what one `send` did. Every push planned ends in exactly one
/// of `delivered`, `dropped`, `rejected`, `deferred`, so they sum to `pushes` (fields: docs/push.md).
public struct PushReport: Codable, Sendable, Equatable {
    public var version = 1
    public var dryRun = false
    public var tokens = 0
    public var pushes = 0
    public var delivered = 0
    public var dropped = 0
    public var rejected = 0
    public var deferred = 0
    public var answers: [String: Int] = [:]
    public var retries = 0
    public var providerTokenRenewals = 0
    public var droppedTokens: [String] = []
    public var stoppedBecause: String?

    public var summary: String {
        "push: \(pushes) due to \(tokens) token\(tokens == 1 ? "" : "s"): \(delivered) delivered, \(dropped) dropped (token gone), "
            + "\(rejected) rejected, \(deferred) left for the next run"
    }
}
