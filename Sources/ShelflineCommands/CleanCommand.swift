import ArgumentParser
import Foundation
import ShelflineCore
import ShelflineOrchestrator
import ShelflineRender
import ShelflineStageCLI

/// `shelfline clean`: remove run state so stages rerun, or stale runs.
struct CleanCommand: OrchestratorCommand {
    public static let configuration = CommandConfiguration(
        commandName: "clean",
        abstract: "Remove the latest run (or one stage onwards of it, stale runs, or failed-import entries).",
        discussion: helpDiscussion(
            """
            --stage S removes the manifests and outputs of S and every later stage of the latest run, \
            so the next `run` starts at S. --stale removes runs left incomplete for more than 24 hours \
            (judged by each run's own manifests: a finished import is never stale). --failed forgets \
            the failed imports `status` lists (failed-inputs.json). --all removes every run and forgets \
            the failed imports. Without options, removes the latest run. runs/latest then names the \
            newest finished run left, or is removed. The library is never touched.
            """),
        version: shelflineVersion)

    @OptionGroup public var common: CommonOptions
    @Option(name: .long, help: "Rerun from this stage next time.") var stage: StageName?
    @Flag(name: .long, help: "Remove runs incomplete for more than 24 hours.") var stale = false
    @Flag(name: .long, help: "Remove every run and forget the failed imports.") var all = false
    @Flag(name: .long, help: "Forget the failed imports `status` lists.") var failed = false

    public func execute(context: StageContext) async throws {
        let runner = try PipelineRunner(context: context)
        let lock = try WorkspaceLock(workspace: context.workspace, now: context.now())
        defer { withExtendedLifetime(lock) {} }
        let fileManager = FileManager.default
        // `runs/latest` is left naming a run that exists, or gone.
        defer { try? RunDirectory.repairLatest(in: context.workspace) }
        if failed || all {
            let forgotten = try FailedInputs(workspace: context.workspace).removeAll()
            if !common.quiet && forgotten > 0 { print("forgot \(forgotten) failed import(s)") }
        }
        if stale {
            let parameters = try runner.planner.config.parameters(RenderParameters.self, path: runner.configPath)
            let activity = ImportActivityRenderer(workspace: context.workspace, parameters: parameters, files: runner.files)
            for (run, _) in RunDirectory.stale(in: context.workspace, now: context.now()) {
                try? fileManager.removeItem(atPath: run.path)
                // Its Live Activity, if still showing, must not spin forever.
                _ = try? activity.interrupt(runDirectory: run.path, now: context.now(), .abandoned)
                if !common.quiet { print("removed stale run \(run.id)") }
            }
            return
        }
        if all {
            for run in RunDirectory.all(in: context.workspace) { try? fileManager.removeItem(atPath: run.path) }
            try? fileManager.removeItem(atPath: context.workspace.runsDirectory + "/latest")
            return
        }
        if failed { return }
        guard let run = RunDirectory.latest(in: context.workspace) else { return }
        guard let stage else {
            try? fileManager.removeItem(atPath: run.path)
            return
        }
        for declaration in runner.planner.config.stages where declaration.name >= stage {
            try? fileManager.removeItem(atPath: run.manifestPath(declaration.name))
            for output in try declaration.outputs + runner.planner.besideOutputs(of: declaration.name)
            where !output.hasPrefix("{") {
                try? fileManager.removeItem(atPath: run.file(output))
            }
        }
    }
}
