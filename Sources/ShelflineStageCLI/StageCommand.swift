import ArgumentParser
import CSystemShims
import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// Options every Shelfline executable takes.
public struct CommonOptions: ParsableArguments {
    @Option(
        name: .long,
        help: "Path to pipeline.json (default: $SHELFLINE_CONFIG, else ./pipeline.json if present, else built-in defaults).")
    public var config: String?

    @Option(name: .long, help: "Workspace directory (default: $SHELFLINE_WORKSPACE, else the config's, else ./var).")
    public var workspace: String?

    @Flag(name: .long, help: "Print nothing on success (for cron).")
    public var quiet = false

    public init() {}

    /// What every command runs in: the config named by `--config`, `SHELFLINE_CONFIG` or
    /// `./pipeline.json`, else the built-in defaults of `stages`; and the workspace, resolved once
    /// (a relative one while the working directory is gone is 73, never `/var`).
    public func context(stage: Stage? = nil, stages: [Stage] = [], cancellation: CancellationFlag = CancellationFlag()) throws
        -> StageContext
    {
        let environment = ProcessInfo.processInfo.environment
        var path = self.config ?? environment["SHELFLINE_CONFIG"]
        if let path {
            _ = try Workspace.absolute(path, role: .input)
        } else if FileManager.default.fileExists(atPath: "pipeline.json") {
            path = "pipeline.json"
        }
        let config =
            try path.map { try PipelineConfig.load(path: $0) } ?? .builtInDefault(stages: stages, environment: environment)
        let workspace = try Workspace.resolve(
            flag: self.workspace, environment: environment, config: config, currentDirectory: Workspace.currentDirectory())
        return StageContext(
            config: config, configPath: path ?? "(built-in defaults)", workspace: workspace, stage: stage, stages: stages,
            log: Logfmt(quiet: quiet), cancellation: cancellation)
    }
}

/// The shape every stage executable shares: load config, build the context, run, and turn any
/// error into its one-line message and documented exit status. A new stage only writes `execute`.
public protocol StageCommand: AsyncParsableCommand {
    var common: CommonOptions { get }
    /// Default: the executable's name, or `shelfline SUBCOMMAND`.
    static var reportedName: String { get }
    /// The pipeline stage this command runs, if it is one: it may decode only the parameters its
    /// fingerprint covers (`StageContext.parameters`).
    static var stage: Stage? { get }
    /// Declared by its built-in default configuration; it finds their files by role. Default: its own stage's.
    static var knownStages: [Stage] { get }
    func execute(context: StageContext) async throws
}

extension StageCommand {
    public static var reportedName: String {
        let name = configuration.commandName ?? "shelfline"
        return name.hasPrefix("shelfline") ? name : "shelfline \(name)"
    }

    public static var stage: Stage? { nil }

    public static var knownStages: [Stage] { stage.map { [$0] } ?? [] }

    public func run() async throws {
        try await reportingErrors(as: Self.reportedName) {
            ParentWatch.install()
            // SIGTERM/SIGINT set a flag the running stage polls.
            CancellationFlag.installSignalHandlers()
            let context = try common.context(
                stage: Self.stage, stages: Self.knownStages, cancellation: CancellationFlag(followsSignals: true))
            try await execute(context: context)
        }
    }
}

/// The one error → exit-status path of every executable: a one-line `NAME: error: …` on stderr
/// and the documented status (`ExitStatus(for:)`); argument-parser's own exits pass through.
public func reportingErrors<T>(as name: String, _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch  where error is ExitCode || error is CleanExit {
        throw error
    } catch {
        FileHandle.standardError.write(Data("\(name): error: \("\(error)".escapingControlCharacters)\n".utf8))
        throw ExitCode(ExitStatus(for: error).rawValue)
    }
}

public let shelflineVersion = "0.1.0"

/// Appends the exit-status table to an executable's `--help` discussion.
public func helpDiscussion(_ text: String) -> String {
    text + "\n\n" + ExitStatus.helpTable
}

/// A stage started by the orchestrator gets SIGTERM when the orchestrator dies (even by SIGKILL),
/// so no orphaned stage keeps writing into a run the next `shelfline run` resumes.
enum ParentWatch {
    static func install() {
        guard let text = ProcessInfo.processInfo.environment["SHELFLINE_ORCHESTRATOR_PID"], let parent = Int32(text) else {
            return
        }
        _ = shelfline_set_parent_death_signal(SIGTERM)
        if getppid() != parent { kill(getpid(), SIGTERM) }
    }
}
