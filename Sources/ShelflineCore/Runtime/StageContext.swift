import Foundation

/// What a stage may know about the world: the time, its settings and where to log.
///
/// Stages never call `Date()` or read the environment themselves, so tests can pin both and the
/// same inputs give byte-identical outputs.
public struct StageContext: Sendable {
    /// The current time (injected).
    public var now: @Sendable () -> Date
    public var config: PipelineConfig
    public var configPath: String
    public var log: Logfmt
    /// Set when SIGTERM/SIGINT asked the stage to stop; long stages poll it between units of work.
    public var cancellation: CancellationFlag

    public init(now: @escaping @Sendable () -> Date = { Date() }, config: PipelineConfig, configPath: String = "pipeline.json",
                log: Logfmt = Logfmt(), cancellation: CancellationFlag = CancellationFlag()) {
        self.now = now
        self.config = config
        self.configPath = configPath
        self.log = log
        self.cancellation = cancellation
    }
}

/// A flag set from a signal handler and read by the stage between units of work.
public final class CancellationFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false
    public init() {}
    public var isCancelled: Bool { lock.withLock { cancelled } }
    public func cancel() { lock.withLock { cancelled = true } }
}
