import Foundation
import ShelflineCore
import ShelflineOrchestrator
import ShelflineStageCLI

#if canImport(Glibc)
    import Glibc
#endif

/// What every orchestrator subcommand sets up: absolute paths, the stage executables' directory, a runner.
struct OrchestratorSetup {
    var config: PipelineConfig
    var configPath: String
    var workspace: Workspace
    var binDirectory: String
    /// `PipelineRunner.stageArguments`.
    var stageArguments: [StageName: [String]] = [:]

    init(context: StageContext) throws {
        config = context.config
        // `(built-in defaults)` stays as it is.
        configPath =
            context.configPath.hasPrefix("(") ? context.configPath : try Workspace.absolute(context.configPath, role: .input)
        workspace = context.workspace
        binDirectory = ProcessInfo.processInfo.environment["SHELFLINE_BIN"] ?? Self.ownDirectory
    }

    func runner(context: StageContext, quiet: Bool) -> PipelineRunner {
        var runner = PipelineRunner(
            config: config, stages: Stage.pipeline, configPath: configPath, workspace: workspace,
            binDirectory: binDirectory,
            log: context.log, quiet: quiet, now: context.now, cancellation: context.cancellation,
            reportType: { PipelineStages.named($0).reportFile })
        runner.stageArguments = stageArguments
        return runner
    }

    var planner: StagePlanner { StagePlanner(config: config, stages: Stage.pipeline, workspace: workspace) }

    /// An export named by the user is asked again on every run.
    var askAgain: AskAgain { AskAgain(files: files, afterSeconds: 0) }

    var files: RunFiles { RunFiles(config: config, stages: Stage.pipeline) }

    /// Everything a run needs from the config, checked before any stage starts (a stage left out is
    /// 78, not a missing file later): the wiring and each parameter object, by the stage's own type.
    func validateStageParameters() throws {
        try config.validateWiring(path: configPath)
        func validate<Stage: PipelineStage>(_: Stage.Type) throws {
            _ = try config.parameters(Stage.Parameters.self, path: configPath)
        }
        for declaration in config.stages {
            for stage in PipelineStages.named(declaration.name).description.parameterStages {
                try validate(PipelineStages.named(stage))
            }
        }
    }

    /// The stage executables sit beside this one.
    static var ownDirectory: String {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return (path as NSString).deletingLastPathComponent
    }

    /// The run of `--csv` (nothing copied), else the latest run.
    func existingRun(csv: String?) throws -> RunDirectory? {
        if let csv {
            let hash = try ContentHash.file(csv)
            let run = RunDirectory(id: RunDirectory.id(forContentHash: hash), workspace: workspace)
            return FileManager.default.fileExists(atPath: run.path) ? run : nil
        }
        return RunDirectory.latest(in: workspace)
    }
}
