#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ShelflineCore
import ShelflineStageCLI
import ShelflineOrchestrator

/// What every orchestrator subcommand sets up: absolute config and workspace paths, the stage
/// executables' directory, and a runner.
struct OrchestratorSetup {
    var config: PipelineConfig
    var configPath: String
    var workspace: Workspace
    var binDirectory: String

    init(common: CommonOptions, context: StageContext) {
        config = context.config
        configPath = Self.absolute(context.configPath)
        let resolved = common.resolveWorkspace(context.config)
        workspace = Workspace(root: Self.absolute(Self.expandTilde(resolved.root)))
        binDirectory = ProcessInfo.processInfo.environment["SHELFLINE_BIN"] ?? Self.ownDirectory
    }

    func runner(context: StageContext, quiet: Bool) -> PipelineRunner {
        PipelineRunner(config: config, configPath: configPath, workspace: workspace, binDirectory: binDirectory,
                       log: context.log, quiet: quiet, now: context.now, cancellation: context.cancellation)
    }

    var planner: StagePlanner { StagePlanner(config: config, workspace: workspace) }

    /// The directory holding this executable (the stage executables sit beside it).
    static var ownDirectory: String {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return (path as NSString).deletingLastPathComponent
    }

    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") || path.hasPrefix("(") { return path }
        return FileManager.default.currentDirectoryPath + "/" + path
    }

    static func expandTilde(_ path: String) -> String {
        (path as NSString).expandingTildeInPath
    }

    /// The run named by `--csv` (without copying anything), else the latest run.
    func existingRun(csv: String?) throws -> RunDirectory? {
        if let csv {
            let hash = try ContentHash.file(csv)
            let run = RunDirectory(id: RunDirectory.id(forContentHash: hash), workspace: workspace)
            return FileManager.default.fileExists(atPath: run.path) ? run : nil
        }
        return RunDirectory.latest(in: workspace)
    }
}
