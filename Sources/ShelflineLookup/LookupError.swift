import ShelflineCore

/// Errors of the lookup stage: configuration of sources and the local SQLite files it keeps.
public enum LookupError: ShelflineError, Equatable {
    /// The stage's configuration: the message names the key, or the source, and what is wrong.
    case config(String)
    /// SQLite failed on a workspace file (catalog index or cache).
    case database(path: String, reason: String)

    static func invalidParameter(configPath: String, key: String, expected: String) -> LookupError {
        .config("\(configPath): key 'stages[lookup].parameters.\(key)': \(expected)")
    }

    public var exitStatus: ExitStatus {
        if case .database = self { .ioError } else { .config }
    }

    public var description: String {
        switch self {
        case .config(let message): message
        case .database(let path, let reason): "\(path): database error: \(reason)"
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
