import Foundation
import ShelflineCore
import ShelflineOrchestrator
import ShelflineStageCLI

#if canImport(Glibc)
    import Glibc
#endif

/// What every orchestrator subcommand sets up: absolute config and workspace paths, the stage
/// executables' directory, and a runner.
struct OrchestratorSetup {
    var config: PipelineConfig
    var configPath: String
    var workspace: Workspace
    var binDirectory: String
    /// Options a stage executable gets besides those its description derives (a run's `--columns`).
    var stageArguments: [StageName: [String]] = [:]

    init(context: StageContext) throws {
        config = context.config
        configPath = try Self.absolute(context.configPath)
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

    /// The rows a run of an export by name asks again: every run does (`PipelineRunner`'s default).
    var askAgain: AskAgain { AskAgain(files: files, afterSeconds: 0) }

    /// The names of a run's files, as the config declares them.
    var files: RunFiles { RunFiles(config: config, stages: Stage.pipeline) }

    /// Everything a whole run will need from the config, checked before any stage starts: the
    /// stages' wiring (a stage left out is 78, not a missing file later) and every parameter
    /// object each stage decodes, strictly, by the stage's own type (unknown keys, types, ranges).
    func validateStageParameters() throws {
        try config.validateWiring(path: configPath)
        for declaration in config.stages {
            for stage in PipelineStages.named(declaration.name).description.parameterStages {
                try PipelineStages.validateParameters(stage, config: config, path: configPath)
            }
        }
    }

    /// The directory holding this executable (the stage executables sit beside it).
    static var ownDirectory: String {
        let path = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return (path as NSString).deletingLastPathComponent
    }

    /// An input path the user gave, absolute (`(built-in defaults)` stays as it is); relative
    /// while the working directory is gone: 66 naming the cause (`Workspace.absolute`).
    static func absolute(_ path: String) throws -> String {
        if path.hasPrefix("(") { return path }
        return try Workspace.absolute(path, role: .input)
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
