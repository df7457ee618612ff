import ShelflineCore

/// Errors of a pipeline run; each names the stage and what to do next.
public enum OrchestratorError: ShelflineError, Equatable {
    case stageFailed(stage: StageName, status: Int32)
    case stageKilled(stage: StageName, signal: Int32)
    case stageMissing(stage: StageName, path: String)
    /// SIGTERM/SIGINT paused the import.
    case paused(stage: StageName)

    public var exitStatus: ExitStatus {
        switch self {
        case .stageFailed(_, let status): ExitStatus(rawValue: status) ?? .ioError
        case .stageKilled, .stageMissing: .ioError
        case .paused: .tryLater
        }
    }

    /// The process exit code (a failing stage's own status, even if undocumented).
    public var exitCode: Int32 {
        if case .stageFailed(_, let status) = self { return status }
        return exitStatus.rawValue
    }

    public var description: String {
        switch self {
        case .stageFailed(let stage, let status):
            "stage \(stage.rawValue) failed with exit status \(status); earlier stages' outputs are kept, fix the cause and run again"
        case .stageKilled(let stage, let signal):
            "stage \(stage.rawValue) was killed by signal \(signal); run again to resume from \(stage.rawValue)"
        case .stageMissing(let stage, let path):
            "stage \(stage.rawValue): executable not found at \(path) (run `make build`)"
        case .paused(let stage):
            "import paused during \(stage.rawValue); run the same command again to resume"
        }
    }
}
