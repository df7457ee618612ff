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

    /// Loads the config named by `--config`, `SHELFLINE_CONFIG`, or `./pipeline.json`; else the
    /// built-in defaults (`PipelineConfig.builtInDefault`: each of `stages`, default names and
    /// parameters). A relative path when the working directory is gone is 66 naming the cause
    /// (`Workspace.absolute`).
    public func loadConfig(stages: [Stage] = []) throws -> (PipelineConfig, String) {
        let environment = ProcessInfo.processInfo.environment
        if let path = config ?? environment["SHELFLINE_CONFIG"] {
            _ = try Workspace.absolute(path, role: .input)
            return (try PipelineConfig.load(path: path), path)
        }
        if FileManager.default.fileExists(atPath: "pipeline.json") {
            return (try PipelineConfig.load(path: "pipeline.json"), "pipeline.json")
        }
        return (PipelineConfig.builtInDefault(stages: stages, environment: environment), "(built-in defaults)")
    }

    /// What every command runs in: the config (`loadConfig`) and the workspace, resolved once
    /// (`Workspace.resolve`: the flag, the environment, the config, `./var`; `~` expanded, absolute).
    /// A relative workspace when the working directory is gone is 73 naming the cause, never `/var`.
    /// `stages`: the descriptions the command knows (`StageCommand.knownStages`).
    public func context(stage: Stage? = nil, stages: [Stage] = [], cancellation: CancellationFlag = CancellationFlag()) throws
        -> StageContext
    {
        let (config, path) = try loadConfig(stages: stages)
        let workspace = try Workspace.resolve(
            flag: self.workspace, environment: ProcessInfo.processInfo.environment, config: config,
            currentDirectory: Workspace.currentDirectory())
        return StageContext(
            config: config, configPath: path, workspace: workspace, stage: stage, stages: stages,
            log: Logfmt(quiet: quiet), cancellation: cancellation)
    }
}

/// The shape every stage executable shares: load config, build the context, run, and turn any
/// error into its one-line message and documented exit status. A new stage only writes `execute`.
public protocol StageCommand: AsyncParsableCommand {
    var common: CommonOptions { get }
    /// The name errors are reported under (default: the executable's, or `shelfline SUBCOMMAND`).
    static var reportedName: String { get }
    /// The pipeline stage this command runs (its description), if it is one: it may decode only
    /// the parameters its fingerprint covers (`StageContext.parameters`). Default: none.
    static var stage: Stage? { get }
    /// The stage descriptions the command knows (`StageContext.stages`): its built-in default
    /// configuration declares them, and it finds their files by role. Default: its own stage's.
    static var knownStages: [Stage] { get }
    func execute(context: StageContext) async throws
}

extension StageCommand {
    /// `shelfline-parse`, or `shelfline run` for the orchestrator's subcommands.
    public static var reportedName: String {
        let name = configuration.commandName ?? "shelfline"
        return name.hasPrefix("shelfline") ? name : "shelfline \(name)"
    }

    public static var stage: Stage? { nil }

    public static var knownStages: [Stage] { stage.map { [$0] } ?? [] }

    public func run() async throws {
        try await reportingErrors(as: Self.reportedName) {
            ParentWatch.install()
            let context = try common.context(
                stage: Self.stage, stages: Self.knownStages, cancellation: SignalCancellation.install())
            try await execute(context: context)
        }
    }
}

/// The one error → exit-status path of every executable: a one-line `NAME: error: …` on stderr
/// and the documented status (`ExitStatus(for:)`); argument-parser's own exits pass through.
public func reportingErrors<T>(as name: String, _ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as ExitCode {
        throw error
    } catch let error as CleanExit {
        throw error
    } catch {
        FileHandle.standardError.write(Data("\(name): error: \("\(error)".escapingControlCharacters)\n".utf8))
        throw ExitCode(ExitStatus(for: error).rawValue)
    }
}

/// Turns SIGTERM/SIGINT into a `CancellationFlag` the running stage polls.
public enum SignalCancellation {
    /// Installs the handlers and returns a flag that follows them.
    public static func install() -> CancellationFlag {
        CancellationFlag.installSignalHandlers()
        return CancellationFlag(followsSignals: true)
    }
}

/// Version shared by every executable.
public let shelflineVersion = "0.1.0"

/// The discussion appended to every executable's `--help`.
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
