import Foundation

/// What a stage may know about the world: the time, its settings, its workspace and where to log.
/// Stages never call `Date()` or read the environment, so the same inputs give the same bytes.
public struct StageContext: Sendable {
    public var now: @Sendable () -> Date
    public var config: PipelineConfig
    public var configPath: String
    /// Resolved once (`Workspace.resolve`).
    public var workspace: Workspace
    /// The stage running, when the command is one: it may decode only the parameters its
    /// fingerprint covers.
    public var stage: Stage?
    /// The stages the command knows: the built-in default configuration and `RunFiles` use them.
    public var stages: [Stage]
    public var log: Logfmt
    public var cancellation: CancellationFlag

    /// `workspace` defaults to the config's against the current directory (kept relative when that
    /// is gone: opening it then fails, it never means `/`).
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

    /// Decodes `T`'s parameters strictly. A stage may decode only what its fingerprint covers
    /// (`Stage.parameterStages`), so a change to anything it reads reruns it.
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

    /// `followsSignals`: also cancelled once the process got a signal (`installSignalHandlers()`).
    public init(followsSignals: Bool = false) {
        self.followsSignals = followsSignals
    }

    public var isCancelled: Bool {
        lock.withLock { cancelled } || (followsSignals && CancellationFlag.signalReceived != 0)
    }

    public func cancel() { lock.withLock { cancelled = true } }

    /// Set only by the async-signal-safe handler below.
    nonisolated(unsafe) static var signalReceived: Int32 = 0

    /// SIGTERM/SIGINT/SIGHUP handlers that only set a flag: real handlers (not SIG_IGN), so children
    /// start with default dispositions. SIGHUP pauses like SIGTERM, as the README promises.
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
