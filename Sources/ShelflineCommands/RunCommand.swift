import ArgumentParser
import Foundation
import ShelflineActivity
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
            is a no-op that prints the earlier summary. runs/latest names the newest successful or \
            paused import; failed ones are listed in <workspace>/failed-inputs.json (`status`). \
            With --inbox, each new file is its own import: one that fails or cannot be read is \
            reported and the others are still imported; the exit status is the first failure's. \
            One run per workspace at a time (75 if locked). SIGTERM/SIGINT/SIGHUP pause the import \
            (75); the next run resumes it. A failing stage's exit status is passed on. On a terminal: \
            a live line per stage, then a one-line result; otherwise (or --log-format logfmt) logfmt \
            events on stderr. The config's notify command runs after the lock is released, killed \
            after notifyTimeoutSeconds (default 30); its output goes to <workspace>/notify.log. \
            With an `apns` section, a push worker (shelfline-push watch, its own process) sends the \
            import's Live Activity to the registered tokens while the stages run, and shelfline-push \
            send delivers what is still due once the import has ended (docs/push.md).
            """),
        version: shelflineVersion)

    @OptionGroup public var common: CommonOptions

    @Option(name: .long, help: "The export to import.")
    var csv: String?

    @Option(name: .long, help: "Import each new file dropped in this folder, once per content.")
    var inbox: String?

    @Option(name: .long, help: "With --inbox: skip files modified less than this many seconds ago (still being copied).")
    var settle: Double = 5

    @Option(name: .long, help: "auto: a live line per stage on a terminal, logfmt events otherwise; logfmt: always logfmt events.")
    var logFormat: LogFormat = .auto

    enum LogFormat: String, ExpressibleByArgument, CaseIterable {
        case auto, logfmt
    }

    public init() {}

    public func validate() throws {
        if (csv == nil) == (inbox == nil) {
            throw ValidationError("give exactly one of --csv FILE or --inbox DIR")
        }
    }

    public func execute(context: StageContext) async throws {
        let setup = try OrchestratorSetup(context: context)
        try setup.validateStageParameters()
        // `apns` is decoded by shelfline-push; checked here too, so a typo is 78 before the import, not a push failing after it.
        _ = try APNsConfig.decode(setup.config.apns, configPath: setup.configPath)
        try Workspace.makeDirectory(setup.workspace.runsDirectory)
        var events: [ImportEvent] = []
        var failure: (any Error)?
        do {
            // The lock is held only while importing: notify runs after it is released.
            let lock = try WorkspaceLock(workspace: setup.workspace, now: context.now())
            defer { withExtendedLifetime(lock) {} }
            try RunDirectory.refuseUnlinkedLatest(in: setup.workspace)
            for gone in (try? FailedInputs(workspace: setup.workspace).dropMissing()) ?? [] where !common.quiet {
                context.log.error("shelfline: " + FailedInputs.droppedLine(gone))
            }
            if let inbox {
                try importInbox(inbox, setup: setup, context: context, events: &events)
            } else if let csv {
                try importFile(csv, setup: setup, context: context, events: &events)
            }
        } catch {
            failure = error
        }
        if let command = setup.config.notify {
            let notifier = Notifier(command: command, timeoutSeconds: setup.config.notifyTimeoutSeconds ?? Notifier.defaultTimeoutSeconds,
                                    workspace: setup.workspace, log: context.log, now: context.now,
                                    cancellation: context.cancellation)
            // A signal stops the rest too: the run must exit within seconds.
            for event in events where notifier.send(event) == .interrupted { break }
        }
        if let failure { throw failure }
        if context.cancellation.isCancelled {
            throw TryLaterError("stopped by a signal after the import finished; the next run has nothing to redo")
        }
    }

    func importFile(_ csv: String, setup: OrchestratorSetup, context: StageContext, events: inout [ImportEvent]) throws {
        var runner = setup.runner(context: context, quiet: common.quiet)
        runner.sourceFile = try OrchestratorSetup.absolute(csv)
        let progress = TerminalProgress(enabled: !common.quiet, logfmt: logFormat == .logfmt, now: context.now)
        runner.log = progress.log(context.log)
        if progress.terminal { runner.stageOutput = progress.stageOutput }
        let activity = try LiveImportActivity(setup: setup, context: context, sourceFile: runner.sourceFile)
        // With `apns`: pushes go out while the stages run (issue 26).
        let pushWorker = PushWorker(setup: setup, context: context)
        runner.onTick = { stage, run in
            progress.tick(stage: stage, run: run)
            // Render emits the final `end` itself; refreshing beside it would only compete for the lock.
            if stage < .render {
                activity.tick(run: run)
                pushWorker?.startOnce()
            }
        }
        runner.onStageEnd = { stage, run, result in progress.stageEnded(stage: stage, run: run, result: result) }
        let failed = FailedInputs(workspace: setup.workspace)
        var run: RunDirectory?
        do {
            run = try runner.prepareRun(csv: csv)
            let outcome = try runner.run(run!)
            pushWorker?.finish()
            progress.finish()
            try? failed.clear(input: runner.sourceFile ?? csv, runId: outcome.run.id)
            if !common.quiet {
                let prefix = outcome.stagesRun.isEmpty ? "already imported; nothing to do. Earlier summary: " : ""
                print(prefix + outcome.summary)
                for line in outcome.nextSteps { print(line) }
            }
            if setup.config.apns != nil {
                Self.push(setup: setup, context: context, quiet: common.quiet)
            } else if !outcome.stagesRun.isEmpty {
                runner.log.event(["push": "skipped", "reason": "no apns section in \(setup.configPath)"])
            }
            let needsReview = (outcome.report?.rowsToReview ?? 0) > 0
            events.append(ImportEvent(event: needsReview ? "needsReview" : "finished", runId: outcome.run.id, input: csv,
                                      workspace: setup.workspace.root, message: outcome.summary, exitStatus: 0,
                                      report: outcome.report))
        } catch let error as any ShelflineError {
            progress.finish()
            let paused = error.exitStatus == .tryLater
            if let run {
                if paused { try? run.markLatest(in: setup.workspace) }
                activity.interrupt(run: run, error: error)
            }
            // The worker's last pass pushes the paused or failed state; a paused run exits at once.
            pushWorker?.finish()
            if !paused, setup.config.apns != nil { Self.push(setup: setup, context: context, quiet: common.quiet) }
            if !paused {
                try? failed.record(.init(input: runner.sourceFile ?? csv, runId: run?.id, exitStatus: error.exitCode,
                                         message: error.description, failedAt: context.now().timeIntervalSince1970))
            }
            events.append(ImportEvent(event: paused ? "paused" : "failed", runId: run?.id, input: csv,
                                      workspace: setup.workspace.root, message: error.description,
                                      exitStatus: error.exitCode, report: nil))
            throw error
        }
    }

    /// Imports each new file as its own import: a file that cannot be read or fails is reported
    /// and the others go on; the exit status is the first failure's, decided after all of them.
    func importInbox(_ directory: String, setup: OrchestratorSetup, context: StageContext, events: inout [ImportEvent]) throws {
        _ = try OrchestratorSetup.absolute(directory)  // a relative inbox needs a working directory
        let inbox = Inbox(directory: directory, workspace: setup.workspace, settleSeconds: settle)
        let scan = try inbox.scan(now: context.now(), log: context.log)
        var failures: [(path: String, error: any ShelflineError)] = []
        let failedInputs = FailedInputs(workspace: setup.workspace)
        for (path, error) in scan.unreadable {
            context.log.error("shelfline: error: \(error)")
            failures.append((path, error))
            try? failedInputs.record(.init(input: OrchestratorSetup.absolute(path), runId: nil, exitStatus: error.exitCode,
                                           message: error.description, failedAt: context.now().timeIntervalSince1970))
            events.append(ImportEvent(event: "failed", runId: nil, input: path, workspace: setup.workspace.root,
                                      message: error.description, exitStatus: error.exitCode, report: nil))
        }
        var imported = 0
        for (path, hash) in scan.pending {
            if context.cancellation.isCancelled { throw OrchestratorError.paused(stage: .parse) }
            do {
                try importFile(path, setup: setup, context: context, events: &events)
                try inbox.record(hash: hash, name: (path as NSString).lastPathComponent, now: context.now())
                imported += 1
            } catch let error as any ShelflineError {
                if error.exitStatus == .tryLater { throw error }
                context.log.error("shelfline: error: \(path): \(error)")
                failures.append((path, error))
            }
        }
        for name in scan.futureDated {
            // Said even with --quiet: without it the file would wait silently forever.
            context.log.error("shelfline: skipped \(directory)/\(name): its modification time is in the future; "
                + "`touch` it (or fix the clock) to import it")
        }
        if imported == 0 && failures.isEmpty && !common.quiet {
            print("inbox \(directory): nothing new (\(scan.alreadyImported) already imported, "
                  + "\(scan.settling) still being written\(scan.futureDated.isEmpty ? "" : ", \(scan.futureDated.count) dated in the future"))")
        }
        if let first = failures.first {
            let names = failures.map { ($0.path as NSString).lastPathComponent }.joined(separator: ", ")
            throw InboxFailure(failed: names, count: failures.count, imported: imported, first: first.error)
        }
    }
}

/// Some inbox files failed while the others were imported: one line naming them, with the
/// first failure's exit status.
struct InboxFailure: ShelflineError {
    var failed: String
    var count: Int
    var imported: Int
    var first: any ShelflineError

    var exitStatus: ExitStatus { first.exitStatus }
    var exitCode: Int32 { first.exitCode }
    var description: String {
        "\(count) inbox file(s) failed (\(failed)); \(imported) other file(s) imported; the failed ones are retried on the next run"
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
        let parameters = try setup.config.parameters(RenderParameters.self, path: setup.configPath)
        renderer = ImportActivityRenderer(workspace: setup.workspace, parameters: parameters, files: setup.files)
        self.context = context
        self.sourceFile = sourceFile
    }

    /// Ends the activity with a failure state the app can show, or shows it paused.
    func interrupt(run: RunDirectory, error: any ShelflineError) {
        let stage: String
        var interruption: ImportActivityRenderer.Interruption
        switch error {
        case OrchestratorError.paused(let paused):
            stage = paused.rawValue
            interruption = .paused(stage: stage)
        case OrchestratorError.stageFailed(let failed, let status):
            stage = failed.rawValue
            let explanation = Self.explanation(status: status)
            interruption = .failed(stage: stage, reason: explanation.reason, advice: explanation.advice)
        case OrchestratorError.stageKilled(let killed, _), OrchestratorError.stageMissing(let killed, _):
            stage = killed.rawValue
            interruption = .failed(stage: stage, reason: "the stage stopped unexpectedly", advice: "Run the import again")
        default:
            let explanation = Self.explanation(status: error.exitCode)
            interruption = .failed(stage: "start", reason: explanation.reason, advice: explanation.advice)
        }
        do {
            try renderer.interrupt(runDirectory: run.path, now: context.now(), sourceFile: sourceFile, interruption)
        } catch {
            context.log.event(["activity": "import", "event": "error", "error": "\(error)"])
        }
    }

    /// What a failed stage's exit status means to the person holding the phone, and what to do.
    static func explanation(status: Int32) -> (reason: String, advice: String) {
        switch ExitStatus(rawValue: status) {
        case .dataError: ("the file is not a usable export", "Check the file is a library export and import it again")
        case .noInput: ("the file could not be read", "Check the file's permissions and import it again")
        case .config: ("the settings are invalid", "Fix pipeline.json and import again")
        case .cannotCreate, .ioError: ("the disk could not be written", "Free some disk space and import again")
        default: ("exit status \(status)", "See the log and import again")
        }
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
    /// Issue 11: after render (and after the push worker's last pass, issue 26), `shelfline-push
    /// send` delivers what is still due. Its failure is logged and never fails the import: the
    /// outbox keeps what is undelivered for the next run, and the app's periodic poll is the fallback.
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
