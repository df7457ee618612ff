import ArgumentParser
import Foundation
import ShelflineCore
import ShelflineOrchestrator
import ShelflineStageCLI

/// `shelfline plan`: what `run` would do, one line per stage, without doing it.
struct PlanCommand: OrchestratorCommand {
    public static let configuration = CommandConfiguration(
        commandName: "plan", abstract: "Print what `run` would do and why, one line per stage.",
        discussion: helpDiscussion(
            "Reads the run for --csv FILE (default: the latest run) and its stage manifests; writes nothing. The config is validated exactly as `run` validates it (78 naming the key)."
        ),
        version: shelflineVersion)

    @OptionGroup public var common: CommonOptions
    @Option(name: .long, help: "The export to plan for (default: the latest run).") var csv: String?

    public func execute(context: StageContext) async throws {
        let runner = try PipelineRunner(context: context)
        // A config `run` would refuse is refused here too (78).
        try runner.validateStageParameters()
        guard let run = try runner.existingRun(csv: csv) else {
            for stage in runner.planner.config.stages.map(\.name) {
                print("\(stage.rawValue): will run: no run yet for this input")
            }
            return
        }
        for (stage, decision) in try runner.planner.plan(run: run, askAgain: runner.askAgain, now: context.now()) {
            print("\(stage.rawValue): \(decision.text)")
        }
    }
}

extension StageName: ExpressibleByArgument {}
