#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ShelflineCore
import ShelflineStageCLI
import ShelflineOrchestrator
import ShelflineParse
import ShelflineLibrary
import ShelflineLookup
import ShelflineRender

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

    /// Everything a whole run will need from the config, checked before any stage starts: the
    /// stages' wiring (a stage left out is 78, not a missing file later) and each stage's
    /// parameters decoded strictly by the stage's own type (unknown keys, types, ranges).
    func validateStageParameters() throws {
        try config.validateWiring(path: configPath)
        for declaration in config.stages {
            switch declaration.name {
            case .parse: _ = try config.parameters(for: .parse, as: ParseParameters.self, path: configPath)
            case .dedupe: _ = try config.parameters(for: .dedupe, as: DedupeParameters.self, path: configPath)
            case .lookup:
                let parameters = try config.parameters(for: .lookup, as: LookupParameters.self, path: configPath)
                try parameters.validate(configPath: configPath)
            case .merge:
                let parameters = try config.parameters(for: .merge, as: MergeParameters.self, path: configPath)
                try parameters.validate(configPath: configPath)
            case .render: _ = try config.parameters(for: .render, as: RenderParameters.self, path: configPath)
            }
        }
    }

    /// The directory holding this executable (the stage executables sit beside it).
    static var ownDirectory: String {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return (path as NSString).deletingLastPathComponent
    }

    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") || path.hasPrefix("(") { return path }
        // `./var` becomes `<cwd>/var`, not `<cwd>/./var`, in every path shown to the user.
        return ((FileManager.default.currentDirectoryPath + "/" + path) as NSString).standardizingPath
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
