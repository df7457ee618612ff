import ArgumentParser
import Foundation
import ShelflineCore
import ShelflineOrchestrator
import ShelflineStageCLI

/// `shelfline plan`: what `run` would do, one line per stage, without doing it.
struct PlanCommand: StageCommand {
    /// Without a pipeline.json, every stage with its defaults.
    public static var knownStages: [Stage] { Stage.pipeline }

    public static let configuration = CommandConfiguration(
        commandName: "plan", abstract: "Print what `run` would do and why, one line per stage.",
        discussion: helpDiscussion(
            "Reads the run for --csv FILE (default: the latest run) and its stage manifests; writes nothing. The config is validated exactly as `run` validates it (78 naming the key)."
        ),
        version: shelflineVersion)

    @OptionGroup public var common: CommonOptions
    @Option(name: .long, help: "The export to plan for (default: the latest run).") var csv: String?

    public func execute(context: StageContext) async throws {
        let setup = try OrchestratorSetup(context: context)
        // A config `run` would refuse is refused here too (78).
        try setup.validateStageParameters()
        guard let run = try setup.existingRun(csv: csv) else {
            for stage in setup.config.stages.map(\.name) {
                print("\(stage.rawValue): will run: no run yet for this input")
            }
            return
        }
        for (stage, decision) in try setup.planner.plan(run: run, askAgain: setup.askAgain, now: context.now()) {
            print("\(stage.rawValue): \(decision.text)")
        }
    }
}

extension StageName: ExpressibleByArgument {}
