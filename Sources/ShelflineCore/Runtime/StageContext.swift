import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a stage may know about the world: the time, its settings, its workspace and where to log.
///
/// Stages never call `Date()` or read the environment themselves, so tests can pin both and the
/// same inputs give byte-identical outputs.
public struct StageContext: Sendable {
    /// The current time (injected).
    public var now: @Sendable () -> Date
    public var config: PipelineConfig
    public var configPath: String
    /// The workspace, resolved once (`Workspace.resolve`: `~` expanded, absolute).
    public var workspace: Workspace
    /// The stage running (its description), when the command is one; it may decode only the
    /// parameters its fingerprint covers (`parameters(_:)`).
    public var stage: Stage?
    /// The stage descriptions the command knows (its own, or the pipeline's: the commands layer
    /// gives them): the built-in default configuration declares them and `RunFiles` finds their files.
    public var stages: [Stage]
    public var log: Logfmt
    /// Set when SIGTERM/SIGINT/SIGHUP asked the stage to stop; long stages poll it between units of work.
    public var cancellation: CancellationFlag

    /// `workspace` defaults to the config's (else `./var`) against the current directory (kept
    /// relative when the working directory is gone: opening it then fails, it never means `/`).
    public init(
        now: @escaping @Sendable () -> Date = { Date() }, config: PipelineConfig, configPath: String = "pipeline.json",
        workspace: Workspace? = nil, stage: Stage? = nil, stages: [Stage] = [], log: Logfmt = Logfmt(),
        cancellation: CancellationFlag = CancellationFlag()
    ) {
        self.now = now
        self.config = config
        self.configPath = configPath
        self.workspace =
            workspace
            ?? (try? Workspace.resolve(
                flag: nil, environment: [:], config: config, currentDirectory: Workspace.currentDirectory()))
            ?? Workspace(root: config.workspace ?? "var")
        self.stage = stage
        self.stages = stages
        self.log = log
        self.cancellation = cancellation
    }

    /// Decodes `T`'s parameters from the config, strictly, and validates them. A stage may decode
    /// only what the orchestrator fingerprints for it (`Stage.parameterStages`), so a change to
    /// anything it reads reruns it; decoding anything else is a programming error.
    /// `userInfo` is the decoder's (a stage run with its own list of formats or sources passes it).
    public func parameters<T: StageParameters>(_ type: T.Type, userInfo: [CodingUserInfoKey: Any] = [:]) throws -> T {
        if let stage {
            precondition(
                stage.parameterStages.contains(T.stage),
                "stage \(stage.name.rawValue) decodes \(T.stage.rawValue)'s parameters, which its fingerprint does not cover; add it to Stage.parameterStages"
            )
        }
        return try config.parameters(T.self, path: configPath, userInfo: userInfo)
    }
}

/// A flag set by `cancel()` or by SIGTERM/SIGINT/SIGHUP, read by the stage between units of work.
public final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    private let followsSignals: Bool

    /// `followsSignals`: also report cancelled once the process got SIGTERM/SIGINT
    /// (see `installSignalHandlers()`).
    public init(followsSignals: Bool = false) {
        self.followsSignals = followsSignals
    }

    public var isCancelled: Bool {
        lock.withLock { cancelled } || (followsSignals && CancellationFlag.signalReceived != 0)
    }

    public func cancel() { lock.withLock { cancelled = true } }

    /// Set only by the async-signal-safe handler below.
    nonisolated(unsafe) static var signalReceived: Int32 = 0

    /// Installs SIGTERM/SIGINT/SIGHUP handlers that only set a flag. Real handlers (not SIG_IGN) so
    /// that child processes start with default dispositions and can be signalled in turn. SIGHUP
    /// (the terminal closed) pauses like SIGTERM, as the README's exit-status table promises.
    public static func installSignalHandlers() {
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for signalNumber in [SIGTERM, SIGINT, SIGHUP] {
            signal(signalNumber) { _ in CancellationFlag.signalReceived = 1 }
            sigaddset(&unblock, signalNumber)
        }
        // A parent may have started us with these blocked (Foundation's Process passes on its mask).
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }
}
