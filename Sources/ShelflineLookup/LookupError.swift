import ShelflineCore

/// Errors of the lookup stage: configuration of sources and the local SQLite files it keeps.
public enum LookupError: ShelflineError, Equatable {
    /// A source name that no registered source has (`MetadataSources`).
    case unknownSource(name: String, key: String)
    /// The catalog source is enabled but no dump file is configured.
    case catalogNotConfigured(configPath: String)
    /// A parameter has a value that makes no sense (rate ≤ 0, …).
    case invalidParameter(configPath: String, key: String, expected: String)
    /// A base URL that cannot be used.
    case invalidBaseURL(source: String, url: String)
    /// SQLite failed on a workspace file (catalog index or cache).
    case database(path: String, reason: String)

    public var exitStatus: ExitStatus {
        switch self {
        case .unknownSource, .catalogNotConfigured, .invalidParameter, .invalidBaseURL: .config
        case .database: .ioError
        }
    }

    public var description: String {
        switch self {
        case .unknownSource(let name, let key):
            "\(key): unknown metadata source '\(name)', expected one of \(MetadataSources.names.joined(separator: ", "))"
        case .catalogNotConfigured(let configPath):
            "\(configPath): key 'stages[lookup].parameters.catalog': the catalog source needs dump files (set it, or pass --catalog FILE)"
        case .invalidParameter(let configPath, let key, let expected):
            "\(configPath): key 'stages[lookup].parameters.\(key)': \(expected)"
        case .invalidBaseURL(let source, let url):
            "source '\(source)': base URL '\(url)' is not an http(s) URL"
        case .database(let path, let reason):
            "\(path): database error: \(reason)"
        }
    }
}

/// Why one source could not answer one request. Never escapes the stage: the affected records
/// become `notEnriched` with the reason.
public enum SourceFailure: Error, Equatable, Sendable {
    /// The circuit breaker is open: the source failed too often in a row.
    case unavailable(source: String)
    /// Retries or the wait budget ran out; `reason` says what the last attempt saw.
    case failed(source: String, reason: String)
    /// The source cannot be reached in this run (name resolution failed, or connections are refused
    /// even after the breaker's probe). Such answers are not cached: the next run asks again.
    case offline(source: String)
    /// The source answered that its quota is spent (`HTTPPolicy.quotaStatuses`): it is not asked
    /// again in this run; the next run asks again (such answers are not cached).
    case quotaSpent(source: String)

    /// The `reason` written into `MatchResult` for records this failure leaves unmatched.
    public var recordReason: String {
        switch self {
        case .unavailable: "source unavailable"
        case .offline: "offline"
        case .quotaSpent(let source): "\(source) quota spent"
        case .failed(_, let reason): "lookup failed: \(reason)"
        }
    }
}
