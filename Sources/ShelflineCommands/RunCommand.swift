import ArgumentParser
import Foundation
import ShelflineActivity
import ShelflineCore
import ShelflineLibrary
import ShelflineOrchestrator
import ShelflineParse
import ShelflineRender
import ShelflineStageCLI

/// `shelfline run`: import one export, or every new export in an inbox folder.
struct RunCommand: OrchestratorCommand {
    public static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Import an export (--csv) or each new file in an inbox (--inbox), resuming where a previous run stopped.",
        discussion: helpDiscussion(
            """
            Reads FILE (\(FormatChoice.readableNames)), copies it into \
            <workspace>/runs/<run-id>/ (the id is a hash of its content), runs each incomplete stage \
            (parse, dedupe, lookup, merge, render) as its own process, and updates \
            <workspace>/library/library.ndjson.gz. A stage is skipped when its manifest matches its \
            inputs' content, its parameters and its algorithm version. Rerunning a completed import \
            is a no-op that prints the earlier summary, unless its lookup left rows no source could \
            answer (offline, quota spent): those are asked again (an inbox file once its last attempt \
            is askAgainAfterMinutes old, default 60). runs/latest names the newest successful or \
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

    @Option(
        name: .long,
        help: ArgumentHelp(
            GenericMapping.optionHelp + " Overrides the parse parameters' columns for this run. " + GenericMapping.accepted,
            valueName: "FIELD=HEADER,…"))
    var columns: String?

    @Option(
        name: .long, help: "auto: a live line per stage on a terminal, logfmt events otherwise; logfmt: always logfmt events.")
    var logFormat: LogFormat = .auto

    enum LogFormat: String, ExpressibleByArgument, CaseIterable {
        case auto, logfmt
    }

    public func validate() throws {
        if (csv == nil) == (inbox == nil) {
            throw ValidationError("give exactly one of --csv FILE or --inbox DIR")
        }
    }

    public func execute(context: StageContext) async throws {
        var runner = try PipelineRunner(context: context, quiet: common.quiet)
        if let columns {
            // Checked before anything runs; put in the config too, so another mapping parses again.
            let mapping = try GenericMapping(argument: columns)
            for (index, stage) in runner.planner.config.stages.enumerated() where stage.name == .parse {
                runner.planner.config.stages[index].parameters = mapping.replacingColumns(in: stage.parameters)
            }
            runner.stageArguments[.parse] = ["--columns", columns]
        }
        try runner.validateStageParameters()
        // Decoded by shelfline-push; checked here so a typo is 78 before the import, not a push failing after it.
        _ = try APNsConfig.decode(runner.planner.config.apns, configPath: runner.configPath)
        var lifecycle = ImportLifecycle(
            runner: runner, logfmt: logFormat == .logfmt,
            makeActivity: { try LiveImportActivity(runner: runner, context: context, sourceFile: $0) })
        let rebuild = LibraryRebuild(
            workspace: runner.workspace, config: runner.planner.config, configPath: runner.configPath,
            cancellation: context.cancellation)
        lifecycle.rebuildLibrary = { await rebuild.afterImport(log: context.log) }
        lifecycle.beforeImport = { try rebuild.placeEarlierImports() }
        if let inbox {
            try await lifecycle.run(.inbox(inbox, settleSeconds: settle))
        } else if let csv {
            try await lifecycle.run(.file(csv))
        }
    }
}

/// Keeps the import's Live Activity snapshot current while stages run (the renderer holds updates
/// to one per 2 s, and only on change).
final class LiveImportActivity: ImportActivity {
    private let renderer: ImportActivityRenderer
    private let context: StageContext
    private let sourceFile: String?
    private let mergeReport: String?
    private var lastCall = Date.distantPast

    init(runner: PipelineRunner, context: StageContext, sourceFile: String?) throws {
        let parameters = try runner.planner.config.parameters(RenderParameters.self, path: runner.configPath)
        renderer = ImportActivityRenderer(workspace: runner.workspace, parameters: parameters, files: runner.files)
        self.context = context
        self.sourceFile = sourceFile
        mergeReport = runner.files.output(.merge, .report)
    }

    func interrupt(run: RunDirectory, error: any ShelflineError) {
        let interruption: ImportActivityRenderer.Interruption =
            switch error {
            case OrchestratorError.paused(let stage): .paused(stage: stage.rawValue)
            case OrchestratorError.stageFailed(let stage, let status): Self.failed(stage: stage.rawValue, status: status)
            case OrchestratorError.stageKilled(let stage, _), OrchestratorError.stageMissing(let stage, _):
                .failed(stage: stage.rawValue, reason: "the stage stopped unexpectedly", advice: "Run the import again")
            default: Self.failed(stage: "start", status: error.exitCode)
            }
        do {
            try renderer.interrupt(runDirectory: run.path, now: context.now(), sourceFile: sourceFile, interruption)
        } catch {
            context.log.event(["activity": "import", "event": "error", "error": "\(error)"])
        }
    }

    /// A failed stage's exit status for the person holding the phone, and what to do.
    static func failed(stage: String, status: Int32) -> ImportActivityRenderer.Interruption {
        let (reason, advice) =
            switch ExitStatus(rawValue: status) {
            case .dataError: ("the file is not a usable export", "Check the file is a library export and import it again")
            case .noInput: ("the file could not be read", "Check the file's permissions and import it again")
            case .config: ("the settings are invalid", "Fix pipeline.json and import again")
            case .cannotCreate, .ioError: ("the disk could not be written", "Free some disk space and import again")
            default: ("exit status \(status)", "See the log and import again")
            }
        return .failed(stage: stage, reason: reason, advice: advice)
    }

    func tick(run: RunDirectory) {
        let now = context.now()
        guard now.timeIntervalSince(lastCall) >= 1 else { return }
        lastCall = now
        // After merge the `end` and the pages are render's: from here they delayed render's start.
        if let mergeReport, FileManager.default.fileExists(atPath: run.file(mergeReport)) { return }
        do {
            _ = try renderer.refresh(runDirectory: run.path, now: now, sourceFile: sourceFile)
        } catch {
            // Must never stop the import; render retries.
            context.log.event(["activity": "import", "event": "error", "error": "\(error)"])
        }
    }
}
