import ShelflineCore

/// Errors of the lookup stage: configuration of sources and the local SQLite files it keeps.
public enum LookupError: ShelflineError, Equatable {
    case unknownSource(name: String, key: String)
    case catalogNotConfigured(configPath: String)
    case invalidParameter(configPath: String, key: String, expected: String)
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

/// Why a source could not answer: its records become `notEnriched`, uncached, and are asked again.
public enum SourceFailure: Error, Equatable, Sendable {
    /// The circuit breaker is open.
    case unavailable(source: String)
    /// Retries or the wait budget ran out; `reason` says what the last attempt saw.
    case failed(source: String, reason: String)
    case offline(source: String)
    case quotaSpent(source: String)

    /// The `reason` written into `MatchResult`.
    public var recordReason: String {
        switch self {
        case .unavailable: "source unavailable"
        case .offline: "offline"
        case .quotaSpent(let source): "\(source) quota spent"
        case .failed(_, let reason): "lookup failed: \(reason)"
        }
    }
}
