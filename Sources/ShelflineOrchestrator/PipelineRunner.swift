import Foundation
import ShelflineCore
import ShelflineReports

#if canImport(Glibc)
    import Glibc
#endif

/// What a finished (or already complete) import reports.
public struct RunOutcome: Sendable {
    public var run: RunDirectory
    /// Stages actually run this time (empty for a no-op rerun).
    public var stagesRun: [StageName]
    public var report: MergeReport?
    /// The run's report page (render's `page` output).
    public var page: String
    /// Rows asked again because no source could answer them last time (`AskAgain`).
    public var askedAgain = 0

    /// The one-paragraph summary printed at the end of a run.
    public var summary: String {
        guard let report else { return "run \(run.id): no merge report" }
        let o = report.outcomes, e = report.enrichment
        // Rows settled by review decisions are counted apart from those still to review.
        let reviewed = report.rowsReviewed > 0 ? "\(report.rowsReviewed) reviewed, " : ""
        // Rows the source itself marks as not to import (a book in its bin) are neither failed nor imported.
        let skipped = o.skipped.map { ", \($0) skipped (not to be imported, as the source marks them)" } ?? ""
        return """
            run \(run.id): \(report.rowsRead) rows read: \(o.added) added, \(o.updated) updated, \
            \(o.duplicateInFile) duplicate in file, \(o.rejected) rejected\(skipped); enrichment: \(e.matchedByIsbn) by ISBN\
            \(EnrichmentCounts.sourceBreakdown(e.isbnBySource)), \(e.matchedBySearch) by search\
            \(EnrichmentCounts.sourceBreakdown(e.searchBySource)), \(reviewed)\(report.rowsToReview) need review, \(e.notEnriched) not enriched; \
            library: \(report.libraryBooks) books\(askedAgain > 0 ? "; " + AskAgain.reason(rows: askedAgain) : "")
            """
    }

    /// What the user can do next: review rows, rejected rows, where the report is.
    public var nextSteps: [String] {
        guard let report else { return [] }
        var lines: [String] = []
        if report.rowsToReview > 0 {
            lines.append("next: \(report.rowsToReview) row(s) need review: shelfline review list")
        }
        if report.outcomes.rejected > 0 {
            lines.append(
                "next: \(report.outcomes.rejected) row(s) rejected, listed with their reasons in \(run.file(report.failedRows))")
        }
        lines.append("report: \(run.file(page))")
        return lines
    }
}

/// Runs the stage executables of `pipeline.json` in a run directory, restarting at the first
/// incomplete stage; a stage is complete only when its manifest matches a fresh fingerprint.
public struct PipelineRunner {
    public var planner: StagePlanner
    public var configPath: String
    public var binDirectory: String
    public var log: Logfmt
    public var quiet: Bool
    public var now: @Sendable () -> Date
    public var cancellation: CancellationFlag
    /// Called about every half second while a stage runs (terminal progress, live activity).
    public var onTick: (StageName, RunDirectory) -> Void = { _, _ in }
    /// The file the user imported (the run reads a copy); render names the activity after it.
    public var sourceFile: String?
    /// Called when a stage was skipped or finished (the terminal's one-line result).
    public var onStageEnd: (StageName, RunDirectory, StageResult) -> Void = { _, _, _ in }
    /// When set, each line a stage writes on stderr is passed here instead of going straight to
    /// the terminal (so a live progress line and stage messages never interleave).
    public var stageOutput: ((String) -> Void)?
    /// Options a stage executable gets besides those its description derives (a run's
    /// `--columns` for parse); the caller puts what they change in the config's parameters too,
    /// so the stage's fingerprint follows them.
    public var stageArguments: [StageName: [String]] = [:]
    /// A stage complete but for rows no source could answer runs again once its last attempt is
    /// this many seconds old (`AskAgain`; 0: every run of the export asks again).
    public var askAgainAfterSeconds: Double = 0

    /// How a stage ended in this run.
    public enum StageResult: Sendable, Equatable {
        case skipped
        case done(rows: Int?, milliseconds: Int)
    }

    /// The report type of each stage (bound by the commands layer, which links the stage
    /// libraries); its `rowCount` is the stage's `rows=`.
    public var reportType: (StageName) -> (any FileStageReport.Type)?

    /// `stages`: every stage's description, in order (the commands layer's `PipelineStages`).
    public init(
        config: PipelineConfig, stages: [Stage], configPath: String, workspace: Workspace, binDirectory: String,
        log: Logfmt, quiet: Bool, now: @escaping @Sendable () -> Date, cancellation: CancellationFlag,
        reportType: @escaping (StageName) -> (any FileStageReport.Type)?
    ) {
        planner = StagePlanner(config: config, stages: stages, workspace: workspace)
        self.reportType = reportType
        self.configPath = configPath
        self.binDirectory = binDirectory
        self.log = log
        self.quiet = quiet
        self.now = now
        self.cancellation = cancellation
    }

    var workspace: Workspace { planner.workspace }
    var files: RunFiles { RunFiles(config: planner.config, stages: planner.stages) }

    /// Copies `csv` into its content-keyed run directory (once) and returns the run.
    public mutating func prepareRun(csv: String) throws -> RunDirectory {
        if let run = try prepareNewRun(csv: csv) { return run }
        let hash = try ContentHash.file(csv)
        let run = RunDirectory(id: RunDirectory.id(forContentHash: hash), workspace: workspace)
        try Workspace.makeDirectory(run.manifestsDirectory)
        if try reuseIntactCopy(in: run, hash: hash) { return run }
        let copy = run.inputPath(extension: (csv as NSString).pathExtension.lowercased())
        try ContentHash.copy(csv, to: copy, expected: hash, permissions: 0o600)
        // The copy hashed `hash` as it was written: parse's input stamp takes it rather than reading
        // the export a third time.
        preparedInput = FileStamp.make(name: "{csv}", path: copy, sha256: hash)
        return run
    }

    /// `prepareRun` for an export no run holds a copy of the size of (a new export, not a rerun):
    /// copied into the runs directory while hashed, then renamed into its run. Hashing first and
    /// copying after read the export twice (the second read and hash were a third of the
    /// orchestrator's own CPU time). Nil when a run's copy has its size: that may be this export
    /// again, which is only hashed, not written.
    mutating func prepareNewRun(csv: String) throws -> RunDirectory? {
        var info = stat()
        guard stat(csv, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int64(info.st_size)
        for run in RunDirectory.all(in: workspace) {
            var copy = stat()
            if let input = run.existingInput, stat(input, &copy) == 0, Int64(copy.st_size) == size { return nil }
        }
        try Workspace.makeDirectory(workspace.runsDirectory)
        // Written as a temporary file of `runs/` and renamed into its run once the hash names it:
        // one left by a process killed before the rename is removed by the next sweep of `runs/`
        // (`StaleTemporaryFiles`). Not committed, it is removed when released (`AtomicFile.deinit`).
        let file = try AtomicFile(path: workspace.runsDirectory + "/export", permissions: 0o600)
        let hash = try ContentHash.copy(csv, into: file)
        let run = RunDirectory(id: RunDirectory.id(forContentHash: hash), workspace: workspace)
        try Workspace.makeDirectory(run.manifestsDirectory)
        // This content's run with an intact copy (the export changed since its size was checked).
        if try reuseIntactCopy(in: run, hash: hash) { return run }
        let copy = run.inputPath(extension: (csv as NSString).pathExtension.lowercased())
        try file.commit(to: copy)
        preparedInput = FileStamp.make(name: "{csv}", path: copy, sha256: hash)
        return run
    }

    /// Whether `run` already holds an intact copy of the content hashing `hash`: then it is the
    /// prepared input. Parse's manifest holds the copy's stamp, so an intact copy is not hashed again.
    private mutating func reuseIntactCopy(in run: RunDirectory, hash: String) throws -> Bool {
        guard let existing = run.existingInput else { return false }
        let recorded = run.manifest(.parse)?.inputs.first { $0.name == "{csv}" }
        guard let stamp = try FileStamp.make(name: "{csv}", path: existing, previous: recorded), stamp.sha256 == hash else {
            return false
        }
        preparedInput = stamp
        return true
    }

    /// The stamp of the copy `prepareRun` checked or wrote (`run` trusts it while its stat facts match).
    public private(set) var preparedInput: FileStamp?

    /// Runs every stage that is not complete, in order.
    /// `runs/latest` is moved to this run only once it completes (a paused run is marked by the
    /// caller), so a failed import never hides the last good one.
    public func run(_ run: RunDirectory) throws -> RunOutcome {
        var stagesRun: [StageName] = []
        var askedAgain = 0
        let askAgain = AskAgain(files: files, afterSeconds: askAgainAfterSeconds)
        // The stamps of the outputs this run has checked or written, for the later stages' inputs.
        var produced: [String: FileStamp] = [:]
        if let preparedInput { produced[preparedInput.name] = preparedInput }
        // The stage that ran last: its outputs are hashed, and its manifest written, on a thread of
        // their own while the next stage runs (`OutputStamping`).
        var stamping: OutputStamping?
        func settle() throws {
            guard let pending = stamping else { return }
            stamping = nil
            for stamp in try pending.wait() { produced[stamp.name] = stamp }
        }
        do {
            for declaration in planner.config.stages {
                let stage = declaration.name
                // A stage judged against its manifest needs the hashes of what it reads.
                if stamping != nil, run.manifest(stage) != nil { try settle() }
                var check = try planner.check(stage, run: run)
                if check.decision.isUpToDate, case let rows = askAgain.rows(stage, in: run, now: now()), rows > 0 {
                    check.decision = .run(reason: AskAgain.reason(rows: rows))
                    askedAgain += rows
                }
                let decision = check.decision
                if decision.isUpToDate {
                    for stamp in run.manifest(stage)?.outputs ?? [] { produced[stamp.name] = stamp }
                    log.event(["stage": stage.rawValue, "event": "skip", "reason": "up to date"])
                    onStageEnd(stage, run, .skipped)
                    continue
                }
                guard case .run(let reason) = decision else { continue }
                log.event(["stage": stage.rawValue, "event": "start", "reason": reason])
                var inputs: [FileStamp]
                switch try check.inputs
                    ?? planner.inputStamps(declaration, run: run, previous: run.manifest(stage), known: produced)
                {
                case .success(let stamps): inputs = stamps
                case .failure(let missing):
                    throw FileError.missingInput(
                        path: planner.path(of: missing.name, in: run) ?? missing.name,
                        reason: "input of stage \(stage.rawValue) is missing")
                }
                let known = produced.merging(
                    (run.manifest(stage)?.outputs ?? []).map { ($0.name, $0) }, uniquingKeysWith: { current, _ in current })
                let workspaceBefore = try planner.workspaceStamps(before: stage, known: known)
                let started = Date()
                try execute(stage, run: run)
                let milliseconds = Int(Date().timeIntervalSince(started) * 1000)
                // The previous stage's outputs this one read were stamped without their hash.
                try settle()
                inputs = inputs.map { $0.sha256 == OutputStamping.pending ? produced[$0.name] ?? $0 : $0 }
                var outputs: [(name: String, path: String, required: Bool)] = []
                for name in declaration.outputs {
                    guard let path = planner.path(of: name, in: run),
                        let stamp = FileStamp.make(name: name, path: path, sha256: OutputStamping.pending)
                    else {
                        throw FileError.missingInput(path: run.file(name), reason: "stage \(stage.rawValue) did not write it")
                    }
                    outputs.append((name, path, true))
                    produced[name] = stamp
                }
                // Recorded when written (a stand-in stage may not), then checked like the declared outputs.
                for name in try planner.besideOutputs(of: stage) {
                    if let path = planner.path(of: name, in: run), FileManager.default.fileExists(atPath: path) {
                        outputs.append((name, path, false))
                    }
                }
                for name in planner.workspaceOutputs(of: stage) {
                    if let path = planner.path(of: name, in: run) { outputs.append((name, path, false)) }
                }
                let parametersHash = planner.parametersHash(stage)
                let description = planner.description(stage)
                var manifest = StageManifest(
                    stage: stage,
                    fingerprint: StageManifest.fingerprint(stage: description, parametersHash: parametersHash, inputs: inputs),
                    algorithmVersion: description.algorithmVersion, parametersHash: parametersHash, inputs: inputs, outputs: [],
                    durationMs: milliseconds, finishedAt: 0)
                manifest.workspaceBefore = workspaceBefore.isEmpty ? nil : workspaceBefore
                stamping = OutputStamping(outputs: outputs, manifest: manifest, path: run.manifestPath(stage), now: now)
                stagesRun.append(stage)
                var fields: KeyValuePairs<String, Any> = ["stage": stage.rawValue, "event": "done", "ms": milliseconds]
                let rows = rowCount(stage, run: run)
                if let rows {
                    fields = ["stage": stage.rawValue, "event": "done", "rows": rows, "ms": milliseconds]
                }
                log.event(fields)
                onStageEnd(stage, run, .done(rows: rows, milliseconds: milliseconds))
            }
            try settle()
        } catch {
            // The last stage that finished keeps its manifest whatever stopped the next one.
            try? settle()
            throw error
        }
        try run.markLatest(in: workspace)
        let report = files.output(.merge, .report).flatMap { try? readJSONFile(MergeReport.self, from: run.file($0)) }
        return RunOutcome(
            run: run, stagesRun: stagesRun, report: report,
            page: files.output(.render, .page) ?? planner.description(.render).defaultOutput(.page), askedAgain: askedAgain)
    }

    /// Starts the stage executable in the run directory and waits, forwarding SIGTERM/SIGINT.
    func execute(_ stage: StageName, run: RunDirectory) throws {
        let executable = binDirectory + "/" + planner.description(stage).executable
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw OrchestratorError.stageMissing(stage: stage, path: executable)
        }
        var environment = ProcessInfo.processInfo.environment
        environment["SHELFLINE_ORCHESTRATOR_PID"] = String(getpid())
        let arguments = try arguments(for: stage, run: run)
        let child: ChildProcess
        let relay = stageOutput.map { StageOutputRelay(handler: $0) }
        do {
            defer { relay?.started() }
            child = try ChildProcess.spawn(
                executable: executable, arguments: arguments, directory: run.path,
                environment: environment, redirection: relay?.redirection)
        } catch {
            throw OrchestratorError.stageMissing(stage: stage, path: executable)
        }
        var forwarded = false
        // Readable as soon as the child ends: the next stage starts then, not at the next 50 ms tick.
        let exit = child.exitDescriptor()
        defer { if exit >= 0 { close(exit) } }
        var termination = child.poll()
        while termination == nil {
            if cancellation.isCancelled && !forwarded {
                child.send(SIGTERM)
                forwarded = true
            }
            onTick(stage, run)
            if let relay {
                relay.pump(waitingMilliseconds: 50, orUntilReadable: exit)
            } else {
                StageOutputRelay.wait(milliseconds: 50, forAnyOf: [exit])
            }
            termination = child.poll()
        }
        relay?.finish()
        switch termination! {
        case .signaled(let signal):
            if forwarded { throw OrchestratorError.paused(stage: stage) }
            throw OrchestratorError.stageKilled(stage: stage, signal: signal)
        case .exited(let status):
            if status == ExitStatus.tryLater.rawValue && forwarded { throw OrchestratorError.paused(stage: stage) }
            guard status == 0 else { throw OrchestratorError.stageFailed(stage: stage, status: status) }
        }
        if cancellation.isCancelled { throw OrchestratorError.paused(stage: stage) }
    }

    /// The stage contract: each executable's arguments, derived from its description (which
    /// option takes which declared input and output, `Stage.inputs`/`outputs`, and its progress
    /// file) and from the declaration's file names.
    func arguments(for stage: StageName, run: RunDirectory) throws -> [String] {
        let declaration = try planner.config.declaration(stage)
        let description = planner.description(stage)
        var arguments: [String] = []
        var options: [String] = []
        func pass(_ files: [StageFile], _ declared: [String], key: String, resolve: (String) -> String) throws {
            for (index, file) in files.enumerated() where file.passing != .foundByRole {
                guard index < declared.count else {
                    throw ConfigError(
                        path: configPath, key: "stages[\(stage.rawValue)].\(key)", expected: "at least \(index + 1) entries")
                }
                if let flag = file.flag {
                    options += [flag, resolve(declared[index])]
                } else {
                    arguments.append(resolve(declared[index]))
                }
            }
        }
        switch description.invocation {
        case .files, .filesAndImportId:
            try pass(description.inputs, declaration.inputs, key: "inputs") { planner.path(of: $0, in: run) ?? $0 }
            try pass(description.outputs, declaration.outputs, key: "outputs") { $0 }
            if let progress = description.progress, let flag = progress.flag {
                options += [flag, progress.defaultName]
            }
            arguments += options + (stageArguments[stage] ?? [])
            if description.invocation == .filesAndImportId { arguments += ["--import-id", run.id] }
        case .runDirectory(let subcommand):
            arguments = [subcommand, "--run", run.path] + (sourceFile.map { ["--source", $0] } ?? [])
        }
        if FileManager.default.fileExists(atPath: configPath) { arguments += ["--config", configPath] }
        arguments += ["--workspace", workspace.root]
        if quiet { arguments.append("--quiet") }
        return arguments
    }

    /// Rows a stage handled, as its report declares them (`StageReport.rowCount`), for the log line.
    func rowCount(_ stage: StageName, run: RunDirectory) -> Int? {
        guard let type = reportType(stage), let name = files.output(stage, .report),
            let data = FileManager.default.contents(atPath: run.file(name))
        else { return nil }
        return Self.rowCount(type, from: data)
    }

    static func rowCount<Report: FileStageReport>(_ type: Report.Type, from data: Data) -> Int? {
        (try? JSONDecoder().decode(Report.self, from: data))?.rowCount
    }
}

/// Reads a stage's stderr through a pipe and hands it on line by line.
final class StageOutputRelay {
    private let handler: (String) -> Void
    private let readEnd: Int32
    private let writeEnd: Int32
    private var pending: [UInt8] = []

    init(handler: @escaping (String) -> Void) {
        self.handler = handler
        let ends = ChildProcess.pipe()
        readEnd = ends?.read ?? -1
        writeEnd = ends?.write ?? -1
    }

    var redirection: ChildProcess.Redirection? {
        writeEnd >= 0 ? .init(stdin: nil, stdout: nil, stderr: writeEnd) : nil
    }

    /// The child has its copy: close ours so end-of-file arrives when it exits.
    func started() { if writeEnd >= 0 { close(writeEnd) } }

    /// Waits up to `waitingMilliseconds` for output (or for `other`, when not -1, to be readable)
    /// and passes on complete lines.
    func pump(waitingMilliseconds: Int32, orUntilReadable other: Int32 = -1) {
        Self.wait(milliseconds: waitingMilliseconds, forAnyOf: [readEnd, other])
        if readEnd >= 0 { readAvailable() }
    }

    /// Waits up to `milliseconds` for any of `descriptors` (those not -1) to be readable.
    static func wait(milliseconds: Int32, forAnyOf descriptors: [Int32]) {
        var polled = descriptors.filter { $0 >= 0 }.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        if polled.isEmpty {
            usleep(UInt32(milliseconds) * 1000)
        } else {
            _ = poll(&polled, nfds_t(polled.count), milliseconds)
        }
    }

    private func readAvailable() {
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            pending += buffer[..<count]
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                handler(String(decoding: pending[..<newline], as: UTF8.self))
                pending.removeSubrange(...newline)
            }
        }
    }

    func finish() {
        guard readEnd >= 0 else { return }
        readAvailable()
        if !pending.isEmpty { handler(String(decoding: pending, as: UTF8.self)) }
        pending = []
        close(readEnd)
    }
}

/// A finished stage's outputs hashed, and its manifest written, on a thread of its own, so that the
/// next stage need not wait for a large file's SHA-256 while a core is otherwise idle. Until then the next
/// stage's input stamps carry `pending` for these files, and are completed once `wait` returns.
final class OutputStamping: @unchecked Sendable {
    /// The hash of a stamp whose file is still being hashed.
    static let pending = "pending"

    private let done = DispatchSemaphore(value: 0)
    // Written by the thread before `done` is signalled, read by `wait` after.
    private var result: Result<[FileStamp], any Error> = .success([])

    /// `outputs`: each file with whether it must exist (a declared output) or may not (a workspace one).
    init(
        outputs: [(name: String, path: String, required: Bool)], manifest: StageManifest, path: String,
        now: @escaping @Sendable () -> Date
    ) {
        let thread = Thread { [self] in
            defer { done.signal() }
            result = Result {
                var stamps: [FileStamp] = []
                for output in outputs {
                    guard let stamp = try FileStamp.make(name: output.name, path: output.path, previous: nil) else {
                        if output.required {
                            throw FileError.missingInput(
                                path: output.path, reason: "stage \(manifest.stage.rawValue) did not write it")
                        }
                        continue
                    }
                    stamps.append(stamp)
                }
                var manifest = manifest
                manifest.outputs = stamps
                manifest.finishedAt = now().timeIntervalSince1970
                try writeJSONFile(manifest, to: path)
                return stamps
            }
        }
        thread.start()
    }

    /// The outputs' stamps, once the manifest is written; the error that kept it from being written.
    func wait() throws -> [FileStamp] {
        done.wait()
        return try result.get()
    }
}
