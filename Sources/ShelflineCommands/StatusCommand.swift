import ArgumentParser
import Foundation
import ShelflineCore
import ShelflineOrchestrator
import ShelflineStageCLI

/// `shelfline status`: 0 up to date, 1 work pending, 2 error.
struct StatusCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Exit 0 if the run is up to date, 1 if work is pending, 2 on error; list stale runs.",
        discussion: """
            Reads the run for --csv FILE (default: the latest run) and its manifests. Runs left \
            incomplete for more than 24 hours are listed as stale (`clean --stale` removes them), \
            and imports that failed are listed on their own. Rows the last lookup could not get an answer \
            for (a source offline) are work pending: `run` asks again for them.

            A failed import whose file is gone is dropped from the list, said once. \
            Exit status: 0 up to date, 1 work pending (or no run yet), 2 error (bad config, unreadable \
            workspace: a regular file, a symlink loop).
            """,
        version: shelflineVersion)

    @OptionGroup public var common: CommonOptions
    @Option(name: .long, help: "The export to check (default: the latest run).") var csv: String?

    public func run() async throws {
        do {
            let runner = try PipelineRunner(context: try common.context(stages: Stage.pipeline))
            try runner.workspace.checkReadable()
            for stale in RunDirectory.stale(in: runner.workspace, now: Date()) {
                print("stale: run \(stale.run.id) incomplete since \(ISO8601DateFormatter().string(from: stale.lastActivity))")
            }
            let failedInputs = FailedInputs(workspace: runner.workspace)
            // Said once, by whoever holds the lock first (this, or the next run).
            if FileManager.default.fileExists(atPath: failedInputs.path),
                let lock = try? WorkspaceLock(workspace: runner.workspace, now: Date())
            {
                for gone in (try? failedInputs.dropMissing()) ?? [] { print(FailedInputs.droppedLine(gone)) }
                withExtendedLifetime(lock) {}
            }
            for failed in failedInputs.entries() where !failed.isGone {
                print("failed: \(failed.input) (exit \(failed.exitStatus)): \(failed.message)")
            }
            guard let run = try runner.existingRun(csv: csv) else {
                print("pending: no run yet")
                throw ExitCode(1)
            }
            let plan = try runner.planner.plan(run: run, askAgain: runner.askAgain)
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
