import ArgumentParser
import Foundation
import ShelflineCore
import ShelflineStageCLI
import ShelflineOrchestrator
import ShelflineRender

/// `shelfline run`: import one export, or every new export in an inbox folder.
public struct RunCommand: StageCommand {
    public static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Import an export (--csv) or each new file in an inbox (--inbox), resuming where a previous run stopped.",
        discussion: helpDiscussion("""
            Reads FILE (Goodreads, StoryGraph, LibraryThing or a mapped CSV), copies it into \
            <workspace>/runs/<run-id>/ (the id is a hash of its content), runs each incomplete stage \
            (parse, dedupe, lookup, merge, render) as its own process, and updates \
            <workspace>/library/library.ndjson.gz. A stage is skipped when its manifest matches its \
            inputs' content, its parameters and its algorithm version. Rerunning a completed import \
            is a no-op that prints the earlier summary. One run per workspace at a time (75 if locked). \
            SIGTERM/SIGINT pause the import (75); the next run resumes it. A failing stage's exit \
            status is passed on.
            """),
        version: shelflineVersion)

    @OptionGroup public var common: CommonOptions

    @Option(name: .long, help: "The export to import.")
    var csv: String?

    @Option(name: .long, help: "Import each new file dropped in this folder, once per content.")
    var inbox: String?

    @Option(name: .long, help: "With --inbox: skip files modified less than this many seconds ago (still being copied).")
    var settle: Double = 5

    public init() {}

    public func validate() throws {
        if (csv == nil) == (inbox == nil) {
            throw ValidationError("give exactly one of --csv FILE or --inbox DIR")
        }
    }

    public func execute(context: StageContext) async throws {
        let setup = OrchestratorSetup(common: common, context: context)
        try Workspace.makeDirectory(setup.workspace.runsDirectory)
        let lock = try WorkspaceLock(workspace: setup.workspace, now: context.now())
        defer { withExtendedLifetime(lock) {} }
        let notifier = setup.config.notify.map { Notifier(command: $0, log: context.log) }
        if setup.config.apns == nil { context.log.event(["push": "skipped", "reason": "no apns section in \(setup.configPath)"]) }
        if let inbox {
            try importInbox(inbox, setup: setup, context: context, notifier: notifier)
        } else if let csv {
            try importFile(csv, setup: setup, context: context, notifier: notifier)
        }
    }

    func importFile(_ csv: String, setup: OrchestratorSetup, context: StageContext, notifier: Notifier?) throws {
        var runner = setup.runner(context: context, quiet: common.quiet)
        runner.sourceFile = OrchestratorSetup.absolute(csv)
        let progress = TerminalProgress(enabled: !common.quiet)
        let activity = try LiveImportActivity(setup: setup, context: context, sourceFile: runner.sourceFile)
        runner.onTick = { stage, run in
            progress.tick(stage: stage, run: run)
            // Render emits the final `end` itself; refreshing beside it would only compete for the lock.
            if stage < .render { activity.tick(run: run) }
        }
        var run: RunDirectory?
        do {
            run = try runner.prepareRun(csv: csv)
            let outcome = try runner.run(run!)
            progress.finish()
            if !common.quiet {
                let prefix = outcome.stagesRun.isEmpty ? "already imported; nothing to do. Earlier summary: " : ""
                print(prefix + outcome.summary)
            }
            if setup.config.apns != nil { Self.push(setup: setup, context: context, quiet: common.quiet) }
            let needsReview = (outcome.report?.enrichment.needsReview ?? 0) > 0
            notifier?.send(ImportEvent(event: needsReview ? "needsReview" : "finished", runId: outcome.run.id, input: csv,
                                       workspace: setup.workspace.root, message: outcome.summary, exitStatus: 0,
                                       report: outcome.report))
        } catch let error as any ShelflineError {
            progress.finish()
            let paused = error.exitStatus == .tryLater
            notifier?.send(ImportEvent(event: paused ? "paused" : "failed", runId: run?.id, input: csv,
                                       workspace: setup.workspace.root, message: error.description,
                                       exitStatus: error.exitCode, report: nil))
            throw error
        }
    }

    func importInbox(_ directory: String, setup: OrchestratorSetup, context: StageContext, notifier: Notifier?) throws {
        let inbox = Inbox(directory: directory, workspace: setup.workspace, settleSeconds: settle)
        var firstFailure: (any ShelflineError)?
        for (path, hash) in try inbox.pending(now: context.now()) {
            do {
                try importFile(path, setup: setup, context: context, notifier: notifier)
                try inbox.record(hash: hash, name: (path as NSString).lastPathComponent)
            } catch let error as any ShelflineError {
                if error.exitStatus == .tryLater { throw error }
                context.log.error("shelfline: error: \(path): \(error)")
                firstFailure = firstFailure ?? error
            }
        }
        if let firstFailure { throw firstFailure }
    }
}

/// Keeps the import's Live Activity snapshot current while stages run: `start` as soon as the run
/// begins, then `update`s (the renderer itself holds them to one per 2 s, and only on change).
final class LiveImportActivity {
    private let renderer: ImportActivityRenderer
    private let context: StageContext
    private let sourceFile: String?
    private var lastCall = Date.distantPast

    init(setup: OrchestratorSetup, context: StageContext, sourceFile: String?) throws {
        let parameters = try setup.config.parameters(for: .render, as: RenderParameters.self, path: setup.configPath)
        renderer = ImportActivityRenderer(workspace: setup.workspace, parameters: parameters)
        self.context = context
        self.sourceFile = sourceFile
    }

    func tick(run: RunDirectory) {
        let now = context.now()
        guard now.timeIntervalSince(lastCall) >= 1 else { return }
        lastCall = now
        do {
            _ = try renderer.refresh(runDirectory: run.path, now: now, sourceFile: sourceFile)
        } catch {
            // A snapshot that cannot be written must never stop the import; the render stage retries.
            context.log.event(["activity": "import", "event": "error", "error": "\(error)"])
        }
    }
}

extension RunCommand {
    /// Issue 11: after render, `shelfline-push send` delivers the import activity's snapshots. Its
    /// failure is logged and never fails the import: the outbox keeps what is undelivered for the
    /// next run, and the app's periodic poll is the fallback.
    static func push(setup: OrchestratorSetup, context: StageContext, quiet: Bool) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: setup.binDirectory + "/shelfline-push")
        process.arguments = ["send", "--workspace", setup.workspace.root, "--config", setup.configPath] + (quiet ? ["--quiet"] : [])
        do {
            try process.run()
            process.waitUntilExit()
            if process.terminationStatus != 0 { context.log.error("shelfline: push: shelfline-push exited \(process.terminationStatus); the next run retries") }
        } catch {
            context.log.error("shelfline: push: cannot start \(setup.binDirectory)/shelfline-push: \(error)")
        }
    }
}
