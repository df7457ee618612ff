import Foundation
import ShelflineCore

/// The import's Live Activity, supplied by the command layer (render's renderer is in a library the
/// orchestrator does not link).
public protocol ImportActivity: AnyObject {
    /// While a stage before render runs: refresh the snapshot, at most once a second (it runs
    /// inside the wait for the stage).
    func tick(run: RunDirectory)
    func interrupt(run: RunDirectory, error: any ShelflineError)
}

/// One `shelfline run`: under the workspace lock, import an export (or each new file of an inbox)
/// with progress, Live Activity and push worker beside the stages, then notify once the lock is released.
public struct ImportLifecycle {
    /// Each file's import starts from a copy of it.
    public var runner: PipelineRunner
    /// `--log-format logfmt`: events, never a live line.
    public var logfmt: Bool
    /// Given the file the user imported.
    public var makeActivity: (String?) throws -> any ImportActivity
    public var output: (String) -> Void = { print($0) }
    /// Called under the lock after a merge found books only a rebuild can part
    /// (`MergeReport.booksToRebuild`); returns the lines to show. Supplied by the command layer,
    /// which links the library stage.
    public var rebuildLibrary: (() async -> [String])?
    /// Called under the lock before anything is imported.
    public var beforeImport: (() throws -> Void)?

    public init(runner: PipelineRunner, logfmt: Bool, makeActivity: @escaping (String?) throws -> any ImportActivity) {
        self.runner = runner
        self.logfmt = logfmt
        self.makeActivity = makeActivity
    }

    public enum Source {
        case file(String)
        case inbox(String, settleSeconds: Double)
    }

    /// Imports `source`; then, with the lock released, runs the notify command for each event.
    public func run(_ source: Source) async throws {
        try Workspace.makeDirectory(runner.workspace.runsDirectory)
        var events: [ImportEvent] = []
        var failure: (any Error)?
        do {
            let lock = try WorkspaceLock(workspace: runner.workspace, now: runner.now())
            defer { withExtendedLifetime(lock) {} }
            try RunDirectory.refuseUnlinkedLatest(in: runner.workspace)
            try beforeImport?()
            for gone in (try? FailedInputs(workspace: runner.workspace).dropMissing()) ?? [] where !runner.quiet {
                runner.log.error("shelfline: " + FailedInputs.droppedLine(gone))
            }
            switch source {
            case .inbox(let inbox, let settle): try await importInbox(inbox, settleSeconds: settle, events: &events)
            case .file(let csv): try await importFile(csv, events: &events)
            }
        } catch {
            failure = error
        }
        if let command = runner.planner.config.notify {
            let notifier = Notifier(
                command: command, timeoutSeconds: runner.planner.config.notifyTimeoutSeconds ?? Notifier.defaultTimeoutSeconds,
                workspace: runner.workspace, log: runner.log, now: runner.now, cancellation: runner.cancellation)
            // After a signal the run must exit within seconds.
            for event in events where notifier.send(event) == .interrupted { break }
        }
        if let failure { throw failure }
        if runner.cancellation.isCancelled {
            throw TryLaterError("stopped by a signal after the import finished; the next run has nothing to redo")
        }
    }

    /// `askAgainAfterSeconds`: 0 for an export the user names; an inbox waits `askAgainAfterMinutes`.
    func importFile(_ csv: String, askAgainAfterSeconds: Double = 0, events: inout [ImportEvent]) async throws {
        var runner = self.runner
        runner.askAgainAfterSeconds = askAgainAfterSeconds
        runner.sourceFile = try Workspace.absolute(csv, role: .input)
        let progress = TerminalProgress(enabled: !runner.quiet, logfmt: logfmt, files: runner.files, now: runner.now)
        runner.log = progress.log(runner.log)
        if progress.terminal { runner.stageOutput = progress.stageOutput }
        let activity = try makeActivity(runner.sourceFile)
        let pushWorker = runner.planner.config.apns == nil ? nil : PushWorker(runner: self.runner)
        runner.onTick = { stage, run in
            progress.tick(stage: stage, run: run)
            // Render emits the final `end`; refreshing beside it would only compete for the lock.
            if stage < .render {
                activity.tick(run: run)
                pushWorker?.startOnce()
            }
        }
        runner.onStageEnd = { stage, run, result in progress.stageEnded(stage: stage, run: run, result: result) }
        var run: RunDirectory?
        do {
            run = try runner.prepareRun(csv: csv)
            let outcome = try runner.run(run!)
            let pushBudget = pushWorker.map { $0.finish() } ?? PushWorker.exitWaitSeconds
            progress.finish()
            try? FailedInputs(workspace: runner.workspace).clear(input: runner.sourceFile ?? csv, runId: outcome.run.id)
            if !runner.quiet {
                let prefix = outcome.stagesRun.isEmpty ? "already imported; nothing to do. Earlier summary: " : ""
                output(prefix + outcome.summary)
                for line in outcome.nextSteps { output(line) }
            }
            if outcome.stagesRun.contains(.merge), (outcome.report?.booksToRebuild ?? 0) > 0, let rebuildLibrary {
                for line in await rebuildLibrary() where !runner.quiet { output(line) }
            }
            if runner.planner.config.apns != nil {
                if let pushBudget { sendPushes(within: pushBudget) }
            } else if !outcome.stagesRun.isEmpty {
                runner.log.event(["push": "skipped", "reason": "no apns section in \(runner.configPath)"])
            }
            let needsReview = (outcome.report?.rowsToReview ?? 0) > 0
            events.append(
                ImportEvent(
                    event: needsReview ? "needsReview" : "finished", runId: outcome.run.id, input: csv,
                    workspace: runner.workspace.root, message: outcome.summary, exitStatus: 0,
                    report: outcome.report))
        } catch let error as any ShelflineError {
            progress.finish()
            let paused = error.exitStatus == .tryLater
            if let run {
                if paused { try? run.markLatest(in: runner.workspace) }
                activity.interrupt(run: run, error: error)
            }
            // The worker's last pass pushes the paused or failed state; a paused run exits at once.
            let pushBudget = pushWorker.map { $0.finish() } ?? PushWorker.exitWaitSeconds
            if !paused, let pushBudget, runner.planner.config.apns != nil { sendPushes(within: pushBudget) }
            recordEnd(error, paused: paused, input: csv, as: runner.sourceFile ?? csv, runId: run?.id, events: &events)
            throw error
        }
    }

    /// A failed or paused import as a notify event; a failure is also kept in `failed-inputs.json`
    /// under `recorded` (absolute).
    func recordEnd(
        _ error: any ShelflineError, paused: Bool, input: String, as recorded: String?, runId: String?,
        events: inout [ImportEvent]
    ) {
        if !paused, let recorded {
            try? FailedInputs(workspace: runner.workspace).record(
                .init(
                    input: recorded, runId: runId, exitStatus: error.exitCode, message: error.description,
                    failedAt: runner.now().timeIntervalSince1970))
        }
        events.append(
            ImportEvent(
                event: paused ? "paused" : "failed", runId: runId, input: input, workspace: runner.workspace.root,
                message: error.description, exitStatus: error.exitCode, report: nil))
    }

    /// Imports each new file as its own import: one that fails is reported and the others go on;
    /// the exit status is the first failure's.
    func importInbox(_ directory: String, settleSeconds: Double, events: inout [ImportEvent]) async throws {
        _ = try Workspace.absolute(directory, role: .input)  // a relative inbox needs a working directory
        let inbox = Inbox(directory: directory, workspace: runner.workspace, settleSeconds: settleSeconds)
        let askAgainAfter = (runner.planner.config.askAgainAfterMinutes ?? AskAgain.defaultInboxMinutes) * 60
        let askAgain = AskAgain(files: runner.files, afterSeconds: askAgainAfter)
        let scan = try inbox.scan(now: runner.now(), log: runner.log) { hash in
            askAgain.rows(
                in: RunDirectory(id: RunDirectory.id(forContentHash: hash), workspace: runner.workspace), now: runner.now()) > 0
        }
        var failures: [(path: String, error: any ShelflineError)] = []
        for (path, error) in scan.unreadable {
            runner.log.error("shelfline: error: \(error)")
            failures.append((path, error))
            recordEnd(
                error, paused: false, input: path, as: try? Workspace.absolute(path, role: .input), runId: nil, events: &events)
        }
        var imported = 0
        for (path, hash) in scan.pending {
            if runner.cancellation.isCancelled { throw OrchestratorError.paused(stage: .parse) }
            do {
                try await importFile(path, askAgainAfterSeconds: askAgainAfter, events: &events)
                try inbox.record(hash: hash, name: (path as NSString).lastPathComponent, now: runner.now())
                imported += 1
            } catch let error as any ShelflineError {
                if error.exitStatus == .tryLater { throw error }
                runner.log.error("shelfline: error: \(path): \(error)")
                failures.append((path, error))
            }
        }
        for name in scan.futureDated {
            // Said even with --quiet: without it the file would wait silently forever.
            runner.log.error(
                "shelfline: skipped \(directory)/\(name): its modification time is in the future; "
                    + "`touch` it (or fix the clock) to import it")
        }
        if imported == 0 && failures.isEmpty && !runner.quiet {
            output(
                "inbox \(directory): nothing new (\(scan.alreadyImported) already imported, "
                    + "\(scan.settling) still being written\(scan.futureDated.isEmpty ? "" : ", \(scan.futureDated.count) dated in the future"))"
            )
        }
        if let first = failures.first {
            let names = failures.map { ($0.path as NSString).lastPathComponent }.joined(separator: ", ")
            throw InboxFailure(failed: names, count: failures.count, imported: imported, first: first.error)
        }
    }

    /// `shelfline-push send` after the import delivers what is still due. Its failure never fails
    /// the import: the outbox keeps it for the next run, and the app's poll is the fallback.
    func sendPushes(within seconds: Double) {
        let executable = runner.binDirectory + "/shelfline-push"
        let arguments =
            ["send", "--workspace", runner.workspace.root, "--config", runner.configPath] + (runner.quiet ? ["--quiet"] : [])
        do {
            let child = try ChildProcess.spawn(
                executable: executable, arguments: arguments,
                directory: nil,
                environment: ProcessInfo.processInfo.environment, stdinFromNull: false)
            // The exit waits for APNs this long at most; what is left stays in the outbox.
            guard let termination = child.wait(until: DispatchTime.now() + seconds) else {
                child.send(SIGTERM)
                _ = child.wait()
                runner.log.error(
                    "shelfline: push: APNs did not answer within \(Int(PushWorker.exitWaitSeconds)) s; "
                        + "what is left is in the outbox for the next shelfline-push send")
                return
            }
            switch termination {
            case .exited(0): break
            case .exited(let status): runner.log.error("shelfline: push: shelfline-push exited \(status); the next run retries")
            case .signaled(let signal): runner.log.error("shelfline: push: shelfline-push exited \(signal); the next run retries")
            }
        } catch {
            runner.log.error("shelfline: push: cannot start \(executable): \(error)")
        }
    }
}

/// Some inbox files failed while the others were imported; the first failure's exit status.
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
