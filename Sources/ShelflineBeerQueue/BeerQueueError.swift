import Foundation
import ShelflineCore

/// Errors of the beer-queue activity. Messages never contain the session cookie: whatever a page
/// or server said is passed through `redacting(_:)` before it is shown.
public enum BeerQueueError: ShelflineError, Equatable {
    case unrecognisedPage(source: String, reason: String)
    /// Every queued beer on the page is malformed.
    case malformedRows(source: String, skipped: [SkippedRow])
    case sessionExpired(credentialsFile: String?)
    case queueUnavailable(host: String, reason: String)
    case insecureCredentials(path: String, mode: String)
    case invalidCredentials(path: String, reason: String)
    case invalidQueueFile(path: String, reason: String)

    public var exitStatus: ExitStatus {
        switch self {
        case .unrecognisedPage, .malformedRows, .invalidQueueFile: .dataError
        case .sessionExpired, .insecureCredentials, .invalidCredentials: .config
        case .queueUnavailable: .tryLater
        }
    }

    public var description: String {
        switch self {
        case .unrecognisedPage(let source, let reason):
            "\(source): not a beer-queue page: \(reason); the previous queue is kept"
        case .malformedRows(let source, let skipped):
            "\(source): all \(skipped.count) queued beer\(skipped.count == 1 ? " is" : "s are") malformed (first: queued beer "
                + "\(skipped.first?.row ?? 0): \(skipped.first?.reason ?? "")); the previous queue is kept"
        case .sessionExpired(let path?):
            "the site's session expired (it answered with its login page): log in again and put the new cookie into \(path)"
        case .sessionExpired(nil):
            "the page is the site's login page: the session expired"
        case .queueUnavailable(let host, let reason):
            "\(host)/memberQueues.php: cannot fetch the queue: \(reason); kept the last known queue, marked offline; try again later"
        case .insecureCredentials(let path, let mode):
            "\(path): credentials file has mode \(mode); it must be 0600 (run: chmod 600 \(path))"
        case .invalidCredentials(let path, let reason):
            "\(path): \(reason)"
        case .invalidQueueFile(let path, let reason):
            "\(path): not a beer-queue JSON file: \(reason)"
        }
    }

    /// The same error, its message with every secret replaced by `<redacted>`.
    public func redacting(_ redactor: SecretRedactor) -> any ShelflineError {
        Redacted(description: redactor.redact(description), exitStatus: exitStatus)
    }

    struct Redacted: ShelflineError {
        var description: String
        var exitStatus: ExitStatus
    }
}

/// Replaces the cookie's values in text meant for a person or a snapshot.
public struct SecretRedactor: Sendable {
    /// Shorter values are not treated as secrets: redacting `1` or `en` would garble every message.
    public static let minimumSecretLength = 6
    public static let replacement = "<redacted>"

    public let secrets: [String]

    /// The whole `Cookie` header value and each `name=value` pair's value.
    public init(cookie: String) {
        var secrets = [cookie]
        for pair in cookie.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if let value = parts.count == 2 ? parts[1] : parts.first {
                secrets.append(value.trimmingCharacters(in: .whitespaces))
            }
        }
        // Longest first, so a value inside the whole header is not half-replaced.
        self.secrets = Array(Set(secrets.filter { $0.count >= Self.minimumSecretLength })).sorted { $0.count > $1.count }
    }

    public init() { secrets = [] }

    public func redact(_ text: String) -> String {
        var text = text
        for secret in secrets where text.contains(secret) {
            text = text.replacingOccurrences(of: secret, with: Self.replacement)
        }
        return text
    }
}
