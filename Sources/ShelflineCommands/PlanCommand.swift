import ArgumentParser
import Foundation
import ShelflineCore
import ShelflineStageCLI
import ShelflineOrchestrator

/// `shelfline plan`: what `run` would do, one line per stage, without doing it.
public struct PlanCommand: StageCommand {
    public static let configuration = CommandConfiguration(
        commandName: "plan", abstract: "Print what `run` would do and why, one line per stage.",
        discussion: helpDiscussion("Reads the run for --csv FILE (default: the latest run) and its stage manifests; writes nothing."),
        version: shelflineVersion)

    @OptionGroup public var common: CommonOptions
    @Option(name: .long, help: "The export to plan for (default: the latest run).") var csv: String?

    public init() {}

    public func execute(context: StageContext) async throws {
        let setup = OrchestratorSetup(common: common, context: context)
        guard let run = try setup.existingRun(csv: csv) else {
            for stage in setup.config.stages.map(\.name) {
                print("\(stage.rawValue): will run: no run yet for this input")
            }
            return
        }
        for (stage, decision) in try setup.planner.plan(run: run) {
            print("\(stage.rawValue): \(decision.text)")
        }
    }
}

/// `shelfline status`: 0 up to date, 1 work pending, 2 error.
public struct StatusCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Exit 0 if the run is up to date, 1 if work is pending, 2 on error; list stale runs.",
        discussion: """
            Reads the run for --csv FILE (default: the latest run) and its manifests. Runs left \
            incomplete for more than 24 hours are listed as stale (`clean --stale` removes them).

            Exit status: 0 up to date, 1 work pending (or no run yet), 2 error (bad config, unreadable workspace).
            """,
        version: shelflineVersion)

    @OptionGroup public var common: CommonOptions
    @Option(name: .long, help: "The export to check (default: the latest run).") var csv: String?

    public init() {}

    public func run() async throws {
        do {
            let (config, path) = try common.loadConfig()
            let context = StageContext(config: config, configPath: path)
            let setup = OrchestratorSetup(common: common, context: context)
            for stale in StaleRuns(workspace: setup.workspace, planner: setup.planner).find(now: Date()) {
                print("stale: run \(stale.id) incomplete since \(ISO8601DateFormatter().string(from: stale.lastActivity))")
            }
            guard let run = try setup.existingRun(csv: csv) else {
                print("pending: no run yet")
                throw ExitCode(1)
            }
            let plan = try setup.planner.plan(run: run)
            for (stage, decision) in plan { print("\(stage.rawValue): \(decision.text)") }
            if plan.contains(where: { !$0.1.isUpToDate }) { throw ExitCode(1) }
        } catch let error as ExitCode {
            throw error
        } catch {
            FileHandle.standardError.write(Data("shelfline status: error: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}

/// `shelfline clean`: remove run state so stages rerun, or stale runs.
public struct CleanCommand: StageCommand {
    public static let configuration = CommandConfiguration(
        commandName: "clean", abstract: "Remove the latest run (or one stage onwards of it, or stale runs).",
        discussion: helpDiscussion("""
            --stage S removes the manifests and outputs of S and every later stage of the latest run, \
            so the next `run` starts at S. --stale removes runs left incomplete for more than 24 hours. \
            --all removes every run. Without options, removes the latest run. The library is never touched.
            """),
        version: shelflineVersion)

    @OptionGroup public var common: CommonOptions
    @Option(name: .long, help: "Rerun from this stage next time.") var stage: StageName?
    @Flag(name: .long, help: "Remove runs incomplete for more than 24 hours.") var stale = false
    @Flag(name: .long, help: "Remove every run.") var all = false

    public init() {}

    public func execute(context: StageContext) async throws {
        let setup = OrchestratorSetup(common: common, context: context)
        let lock = try WorkspaceLock(workspace: setup.workspace, now: context.now())
        defer { withExtendedLifetime(lock) {} }
        let fileManager = FileManager.default
        if stale {
            for run in StaleRuns(workspace: setup.workspace, planner: setup.planner).find(now: context.now()) {
                try? fileManager.removeItem(atPath: run.run.path)
                if !common.quiet { print("removed stale run \(run.id)") }
            }
            return
        }
        if all {
            for run in RunDirectory.all(in: setup.workspace) { try? fileManager.removeItem(atPath: run.path) }
            try? fileManager.removeItem(atPath: setup.workspace.runsDirectory + "/latest")
            return
        }
        guard let run = RunDirectory.latest(in: setup.workspace) else { return }
        guard let stage else {
            try? fileManager.removeItem(atPath: run.path)
            try? fileManager.removeItem(atPath: setup.workspace.runsDirectory + "/latest")
            return
        }
        for declaration in setup.config.stages where declaration.name >= stage {
            try? fileManager.removeItem(atPath: run.manifestPath(declaration.name))
            for output in declaration.outputs where !output.hasPrefix("{") {
                try? fileManager.removeItem(atPath: run.file(output))
            }
        }
    }
}

extension StageName: ExpressibleByArgument {}
