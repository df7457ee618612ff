import Foundation
import ShelflineCore
import ShelflineOrchestrator
import ShelflineStageCLI

/// What every orchestrator subcommand sets up: a runner of every stage, with the config's path made
/// absolute (the stages run in the run directory) and the stage executables' directory.
extension PipelineRunner {
    init(context: StageContext, quiet: Bool = false) throws {
        // `(built-in defaults)` stays as it is.
        let configPath =
            context.configPath.hasPrefix("(") ? context.configPath : try Workspace.absolute(context.configPath, role: .input)
        self.init(
            config: context.config, stages: Stage.pipeline, configPath: configPath, workspace: context.workspace,
            binDirectory: ProcessInfo.processInfo.environment["SHELFLINE_BIN"] ?? Self.ownDirectory,
            log: context.log, quiet: quiet, now: context.now, cancellation: context.cancellation,
            reportType: { PipelineStages.named($0).reportFile })
    }

    /// Everything a run needs from the config, checked before any stage starts (a stage left out is
    /// 78, not a missing file later): the wiring and each parameter object, by the stage's own type.
    func validateStageParameters() throws {
        let config = planner.config
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
