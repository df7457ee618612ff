import Foundation
import ShelflineCore
import ShelflineReports

#if canImport(Glibc)
    import Glibc
#endif

/// What a finished (or already complete) import reports.
public struct RunOutcome: Sendable {
    public var run: RunDirectory
    /// Empty for a no-op rerun.
    public var stagesRun: [StageName]
    public var report: MergeReport?
    /// Render's `page` output.
    public var page: String
    /// Rows asked again (`AskAgain`).
    public var askedAgain = 0

    /// The one-paragraph summary printed at the end of a run.
    public var summary: String {
        guard let report else { return "run \(run.id): no merge report" }
        let o = report.outcomes, e = report.enrichment
        let reviewed = report.rowsReviewed > 0 ? "\(report.rowsReviewed) reviewed, " : ""
        // Rows the source marks as not to import (a book in its bin) are neither failed nor imported.
        let skipped = o.skipped.map { ", \($0) skipped (not to be imported, as the source marks them)" } ?? ""
        return """
            run \(run.id): \(report.rowsRead) rows read: \(o.added) added, \(o.updated) updated, \
            \(o.duplicateInFile) duplicate in file, \(o.rejected) rejected\(skipped); enrichment: \(e.matchedByIsbn) by ISBN\
            \(EnrichmentCounts.sourceBreakdown(e.isbnBySource)), \(e.matchedBySearch) by search\
            \(EnrichmentCounts.sourceBreakdown(e.searchBySource)), \(reviewed)\(report.rowsToReview) need review, \(e.notEnriched) not enriched; \
            library: \(report.libraryBooks) books\(askedAgain > 0 ? "; " + AskAgain.reason(rows: askedAgain) : "")
            """
    }

    /// What the user can do next.
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
    /// Called while a stage runs (terminal progress, live activity).
    public var onTick: (StageName, RunDirectory) -> Void = { _, _ in }
    /// The file the user imported (the run reads a copy); render names the activity after it.
    public var sourceFile: String?
    public var onStageEnd: (StageName, RunDirectory, StageResult) -> Void = { _, _, _ in }
    /// Takes each line a stage writes on stderr, so a live progress line and stage messages never interleave.
    public var stageOutput: ((String) -> Void)?
    /// Options beyond those the stage's description derives (a run's `--columns`); the caller puts
    /// them in the config's parameters too, so the fingerprint follows them.
    public var stageArguments: [StageName: [String]] = [:]
    /// Rows no source could answer are asked again once the last attempt is this old (`AskAgain`).
    public var askAgainAfterSeconds: Double = 0
    /// What `run` asks again: with the default 0, what an export the user names left, every time.
    public var askAgain: AskAgain { AskAgain(files: files, afterSeconds: askAgainAfterSeconds) }

    public enum StageResult: Sendable, Equatable {
        case skipped
        case done(rows: Int?, milliseconds: Int)
    }

    /// Bound by the commands layer, which links the stage libraries; `rowCount` gives the log's `rows=`.
    public var reportType: (StageName) -> (any FileStageReport.Type)?

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

    public var workspace: Workspace { planner.workspace }
    public var files: RunFiles { RunFiles(config: planner.config, stages: planner.stages) }

    /// Copies `csv` into its content-keyed run directory (once).
    public mutating func prepareRun(csv: String) throws -> RunDirectory {
        if let run = try prepareNewRun(csv: csv) { return run }
        let hash = try ContentHash.file(csv)
        return try place(csv, hash: hash) { try ContentHash.copy(csv, to: $0, expected: hash, permissions: 0o600) }
    }

    /// `prepareRun` for an export no run holds a copy of its size of: hashed while copied, then
    /// renamed into its run (hashing then copying read it twice, a third of the orchestrator's CPU).
    /// Nil when a run's copy has its size: perhaps this export again, which is only hashed.
    mutating func prepareNewRun(csv: String) throws -> RunDirectory? {
        var info = stat()
        guard stat(csv, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int64(info.st_size)
        for run in RunDirectory.all(in: workspace) {
            var copy = stat()
            if let input = run.existingInput, stat(input, &copy) == 0, Int64(copy.st_size) == size { return nil }
        }
        try Workspace.makeDirectory(workspace.runsDirectory)
        // A temporary file of `runs/`: one a kill left is swept (`StaleTemporaryFiles`); uncommitted, `deinit` removes it.
        let file = try AtomicFile(path: workspace.runsDirectory + "/export", permissions: 0o600)
        return try place(csv, hash: try ContentHash.copy(csv, into: file)) { try file.commit(to: $0) }
    }

    /// The run of content `hash`: its intact copy (checked against parse's manifest stamp, so not
    /// hashed again; the export may have changed since its size was checked), else one `write` makes.
    /// The copy's stamp takes `hash`, taken while copying, rather than reading the export a third time.
    private mutating func place(_ csv: String, hash: String, write: (String) throws -> Void) throws -> RunDirectory {
        let run = RunDirectory(id: RunDirectory.id(forContentHash: hash), workspace: workspace)
        try Workspace.makeDirectory(run.manifestsDirectory)
        if let existing = run.existingInput,
            let stamp = try FileStamp.make(
                name: "{csv}", path: existing, previous: run.manifest(.parse)?.inputs.first { $0.name == "{csv}" }),
            stamp.sha256 == hash
        {
            preparedInput = stamp
            return run
        }
        let copy = run.inputPath(extension: (csv as NSString).pathExtension.lowercased())
        try write(copy)
        preparedInput = FileStamp.make(name: "{csv}", path: copy, sha256: hash)
        return run
    }

    /// The stamp of the copy `prepareRun` checked or wrote (`run` trusts it while its stat facts match).
    public private(set) var preparedInput: FileStamp?

    /// Runs every stage that is not complete, in order. `runs/latest` moves only once the run
    /// completes, so a failed import never hides the last good one.
    public func run(_ run: RunDirectory) throws -> RunOutcome {
        var stagesRun: [StageName] = []
        var askedAgain = 0
        // Stamps this run has checked or written, for the later stages' inputs.
        var produced: [String: FileStamp] = [:]
        if let preparedInput { produced[preparedInput.name] = preparedInput }
        // The last stage's outputs, hashed while the next stage runs.
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
                // The previous stage's outputs were stamped without their hash.
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
                // Recorded when written (a stand-in stage may not write them).
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
                let manifest = StageManifest(
                    stage: stage,
                    fingerprint: StageManifest.fingerprint(stage: description, parametersHash: parametersHash, inputs: inputs),
                    algorithmVersion: description.algorithmVersion, parametersHash: parametersHash, inputs: inputs, outputs: [],
                    durationMs: milliseconds, finishedAt: 0, workspaceBefore: workspaceBefore.isEmpty ? nil : workspaceBefore)
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
            // The last finished stage keeps its manifest whatever stopped the next one.
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

    /// The stage contract: each executable's arguments, from its description (which option takes
    /// which declared file) and the declaration's file names.
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

    /// Rows a stage handled (`StageReport.rowCount`), for the log line.
    func rowCount(_ stage: StageName, run: RunDirectory) -> Int? {
        guard let type = reportType(stage), let name = files.output(stage, .report),
            let data = FileManager.default.contents(atPath: run.file(name))
        else { return nil }
        return (try? JSONDecoder().decode(type, from: data))?.rowCount
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

    /// Closes our write end, so end-of-file arrives when the child exits.
    func started() { if writeEnd >= 0 { close(writeEnd) } }

    /// Waits for output (or for `other` to be readable) and passes on complete lines.
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

/// A finished stage's outputs hashed, and its manifest written, on a thread of its own, so the next
/// stage need not wait for a large file's SHA-256; meanwhile its input stamps carry `pending`.
final class OutputStamping {
    static let pending = "pending"

    private let stamps: Prefetcher<[FileStamp]>

    /// `required`: a declared output, which must exist.
    init(
        outputs: [(name: String, path: String, required: Bool)], manifest: StageManifest, path: String,
        now: @escaping @Sendable () -> Date
    ) {
        stamps = Prefetcher { emit in
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
            try emit(stamps)
        }
    }

    /// The outputs' stamps, once the manifest is written.
    func wait() throws -> [FileStamp] {
        try stamps.next() ?? []
    }
}
