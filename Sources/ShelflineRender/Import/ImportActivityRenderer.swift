import Foundation
import ShelflineActivity
import ShelflineCore
import ShelflineLibrary

/// The import Live Activity's snapshots, derived from what a run directory holds, and the run's
/// `report.html` when it ends.
///
/// The orchestrator calls `refresh` every ~2 s while stages run; each call emits at most what is
/// due: `start` on the first call for a run, an `update` when the counts changed (at most one per
/// `minimumUpdateIntervalSeconds` unless `force`), `end` once `merge-report.json` exists.
public struct ImportActivityRenderer: Sendable {
    public typealias State = CSVImportActivityAttributes.ContentState
    public typealias Snapshot = ActivitySnapshot<CSVImportActivityAttributes, State>

    public var workspace: Workspace
    public var parameters: RenderParameters
    public var files: RunFiles

    public init(workspace: Workspace, parameters: RenderParameters = RenderParameters(), files: RunFiles) {
        self.workspace = workspace
        self.parameters = parameters
        self.files = files
    }

    public var store: ActivityStore {
        ActivityStore(workspace: workspace, name: "import", historyLimit: parameters.historyLimit)
    }

    /// What one `refresh` did.
    public struct Refresh: Sendable, Equatable {
        public var emitted: [ActivityEvent]
        /// What the run directory implies now, emitted or not.
        public var contentState: State
        /// `report.html`, when this call wrote it.
        public var reportPath: String?
    }

    /// Emits the snapshot that is due, if any; `sourceFile` names the file until parse has reported.
    @discardableResult
    public func refresh(runDirectory: String, now: Date, sourceFile: String? = nil, force: Bool = false) throws -> Refresh {
        let status = try ImportRunStatus.read(runDirectory: runDirectory, files: files)
        return try store.withLock {
            try refresh(status: status, runDirectory: runDirectory, now: now, sourceFile: sourceFile, force: force)
        }
    }

    func refresh(status: ImportRunStatus, runDirectory: String, now: Date, sourceFile: String?, force: Bool) throws -> Refresh {
        let session = Self.sessionId(runDirectory: runDirectory)
        let previous = try store.latest(Snapshot.self)
        let state = Self.contentState(for: status)
        var current = previous?.attributes.sessionId == session ? previous : nil
        var emitted: [ActivityEvent] = []
        var reportPath: String?

        if current == nil {
            if let previous, previous.event != .end {
                // Another import's activity never ended: end it, or the phone shows its spinner forever.
                var state = previous.contentState
                state.currentStep =
                    "Not finished: \(previous.attributes.fileName) was replaced by a newer import; import it again"
                state.currentBookTitle = nil
                state.currentBookAuthor = nil
                try store.publish(makeSnapshot(.end, after: previous, state: state, now: now, failed: true))
            }
            let started = unixSeconds(now)
            let attributes = Self.attributes(
                session: session, status: status, sourceFile: sourceFile,
                runDirectory: runDirectory, startedAt: started, now: now)
            let snapshot = makeSnapshot(.start, attributes: attributes, state: state, now: now, startedAt: started)
            try store.publish(snapshot)
            emitted.append(.start)
            current = snapshot
        }
        guard var active = current else { return Refresh(emitted: emitted, contentState: state, reportPath: nil) }
        active.attributes.estimatedDuration =
            Self.estimatedDuration(status: status, startedAt: active.startedAt ?? active.timestamp, now: now)
            ?? active.attributes.estimatedDuration

        if status.merge != nil {
            // Once ended, the page is still rewritten, so a merge rerun after review decisions is
            // reflected and render's declared output always exists; a rerun that changed the final
            // tallies corrects the ended activity too, so no place shows the old count.
            if active.event != .end || state != active.contentState {
                try store.publish(makeSnapshot(.end, after: active, state: state, now: now))
                emitted.append(.end)
            }
            // Titled by the user's file name (the run reads a copy); it links the library page.
            let library = try LibraryPage.write(workspace: workspace)
            reportPath = try ImportReportPage.write(
                status: status, parameters: parameters, fileName: active.attributes.fileName,
                libraryPage: Self.relativePath(of: library, from: status.runDirectory))
        } else if active.event != .end, emitted.isEmpty, state != active.contentState,
            force || now.timeIntervalSince1970 - Double(active.timestamp) >= parameters.minimumUpdateIntervalSeconds
        {
            try store.publish(makeSnapshot(.update, after: active, state: state, now: now))
            emitted.append(.update)
        }
        return Refresh(emitted: emitted, contentState: state, reportPath: reportPath)
    }

    /// `../../library.html` from `<workspace>/runs/<id>`; absolute when they share only the root.
    static func relativePath(of path: String, from directory: String) -> String {
        let target = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        let base = URL(fileURLWithPath: directory).standardizedFileURL.pathComponents
        var common = 0
        while common < base.count, common < target.count - 1, target[common] == base[common] { common += 1 }
        guard common > 1 else { return path }
        return (Array(repeating: "..", count: base.count - common) + target[common...]).joined(separator: "/")
    }

    /// How a run stopped short of its end.
    public enum Interruption: Sendable, Equatable {
        case failed(stage: String, reason: String, advice: String)
        /// SIGTERM, SIGINT, SIGHUP: the next run resumes it.
        case paused(stage: String)
        /// Removed as stale: it will not be resumed.
        case abandoned
    }

    /// A failure ends the activity saying what failed and what to do; a pause leaves it running,
    /// since the next run resumes it; an abandoned run's is ended only if it is the current one.
    @discardableResult
    public func interrupt(runDirectory: String, now: Date, sourceFile: String? = nil, _ interruption: Interruption) throws
        -> State?
    {
        let status =
            (try? ImportRunStatus.read(runDirectory: runDirectory, files: files))
            ?? ImportRunStatus(runDirectory: runDirectory, files: files)
        return try store.withLock {
            let session = Self.sessionId(runDirectory: runDirectory)
            var previous = try store.latest(Snapshot.self)
            if interruption != .abandoned, previous?.attributes.sessionId != session || previous == nil {
                _ = try refresh(status: status, runDirectory: runDirectory, now: now, sourceFile: sourceFile, force: true)
                previous = try store.latest(Snapshot.self)
            }
            guard let active = previous, active.attributes.sessionId == session, active.event != .end else { return nil }
            var state = Self.contentState(for: status)
            state.currentBookTitle = nil
            state.currentBookAuthor = nil
            switch interruption {
            case .failed(let stage, let reason, let advice):
                state.currentStep = "Import failed at \(stage): \(reason). \(advice)"
            case .abandoned:
                state.currentStep = "Import abandoned: it stopped without finishing. Import the file again"
            case .paused(let stage):
                state.currentStep = "Paused during \(stage) · resumes on the next run"
            }
            let paused = if case .paused = interruption { true } else { false }
            try store.publish(
                makeSnapshot(paused ? .update : .end, after: active, state: state, now: now, failed: !paused, paused: paused))
            return state
        }
    }

    /// Merge's final tallies (a book without metadata is no failure), or the same quantities so far.
    public static func contentState(for status: ImportRunStatus) -> State {
        let rejected = status.parse?.rowsRejected ?? 0
        if let merge = status.merge {
            let reviews = merge.rowsToReview
            return State(
                progress: 1, currentStep: reviews > 0 ? "Import complete · \(reviews) to review" : "Import complete",
                booksProcessed: merge.rowsRead, totalBooks: merge.rowsRead,
                successCount: merge.outcomes.added + merge.outcomes.updated,
                duplicateCount: merge.outcomes.duplicateInFile,
                failureCount: merge.outcomes.rejected, matchesBySource: merge.enrichment.matchesBySource)
        }
        let total = status.parse?.rowsRead ?? 0
        let progressFile = status.progress[.lookup]
        let lookupTotal = progressFile?.total ?? status.parse?.rowsWritten ?? 0
        let lookupProcessed: Int
        if status.finished.contains(.lookup) {
            lookupProcessed = status.parse?.rowsWritten ?? progressFile?.total ?? 0
        } else {
            lookupProcessed = min(progressFile?.processed ?? 0, max(lookupTotal, 0))
        }
        let duplicates = status.dedupeDuplicates ?? 0

        let (step, fraction, running) = Self.progressStep(for: status)
        let shown = running.flatMap { status.progress[$0] }.flatMap { $0.finished ? nil : $0 }
        return State(
            progress: fraction, currentStep: step,
            booksProcessed: total > 0 ? min(rejected + lookupProcessed, total) : rejected + lookupProcessed,
            totalBooks: total,
            // Every row past lookup that is not a duplicate ends added or updated: merge's count.
            successCount: max(0, lookupProcessed - duplicates),
            duplicateCount: duplicates,
            failureCount: rejected,
            currentBookTitle: shown?.currentTitle.map(Self.displayText),
            currentBookAuthor: shown?.currentAuthor.map(Self.displayText))
    }

    /// From `Stage.activity`: the first stage without a report is running; the bar stands at the
    /// earlier stages' parts plus the running one's times its progress. A part is a share of all
    /// the shares, so an added stage needs no change to the others'. Three decimals, so a tiny
    /// change is no update.
    static func progressStep(for status: ImportRunStatus) -> (step: String, fraction: Double, running: StageName?) {
        let whole = status.files.stages.reduce(0) { $0 + $1.activity.share }
        func part(_ stage: Stage) -> Double { whole > 0 ? stage.activity.share / whole : 0 }
        var start = 0.0
        var last: (step: String, fraction: Double, running: StageName?) = ("", 0, nil)
        for stage in status.files.stages {
            guard let text = stage.activity.text else { break }
            // 0.05 + 0.05 + 0.85 is not 0.95 in binary: whole millionths.
            let stageStart = (start * 1_000_000).rounded() / 1_000_000
            guard status.finished.contains(stage.name) else {
                let done = status.progress[stage.name].map {
                    $0.total > 0 ? Double(min($0.processed, $0.total)) / Double($0.total) : 0
                }
                let fraction = stageStart + part(stage) * min(max(done ?? 0, 0), 1)
                return (text, (fraction * 1000).rounded() / 1000, stage.name)
            }
            start += part(stage)
            last = (text, ((start * 1_000_000).rounded() / 1_000_000 * 1000).rounded() / 1000, nil)
        }
        return last
    }

    /// Time so far plus what lookup's rate says the rest needs; at the end, the measured duration.
    static func estimatedDuration(status: ImportRunStatus, startedAt: Int, now: Date) -> TimeInterval? {
        let elapsed = max(0, now.timeIntervalSince1970 - Double(startedAt))
        if status.merge != nil { return elapsed.rounded() }
        guard !status.finished.contains(.lookup), let progress = status.progress[.lookup], let rate = progress.rate, rate > 0
        else { return nil }
        let remaining = Double(max(0, progress.total - progress.processed)) / rate
        return (elapsed + remaining).rounded()
    }

    /// A name-based UUID of the run directory's name: every call for a run agrees, sharing nothing.
    public static func sessionId(runDirectory: String) -> UUID {
        let resolved = URL(fileURLWithPath: runDirectory).standardizedFileURL.resolvingSymlinksInPath().lastPathComponent
        var bytes = Array(SHA256.hash(data: Data("shelfline.import-activity:\(resolved)".utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50  // version 5 (name-based, SHA)
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        return bytes.withUnsafeBytes { UUID(uuid: $0.load(as: uuid_t.self)) }
    }

    static func attributes(
        session: UUID, status: ImportRunStatus, sourceFile: String?, runDirectory: String,
        startedAt: Int, now: Date
    ) -> CSVImportActivityAttributes {
        let source = sourceFile ?? status.parse?.input
        let name = source.map { ($0 as NSString).lastPathComponent } ?? (runDirectory as NSString).lastPathComponent
        let size = source.flatMap { source in
            (source.hasPrefix("/") ? [source] : [source, runDirectory + "/" + source]).lazy.compactMap {
                (try? FileManager.default.attributesOfItem(atPath: $0))?[.size] as? NSNumber
            }.first?.int64Value
        }
        return CSVImportActivityAttributes(
            fileName: displayText(name), sessionId: session, fileSize: size,
            estimatedDuration: estimatedDuration(status: status, startedAt: startedAt, now: now))
    }

    static func displayText(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ").truncated(toCharacters: 160)
    }

    /// The next snapshot of `active`'s activity.
    func makeSnapshot(
        _ event: ActivityEvent, after active: Snapshot, state: State, now: Date, failed: Bool = false, paused: Bool = false
    ) -> Snapshot {
        makeSnapshot(
            event, attributes: active.attributes, state: state, now: now, startedAt: active.startedAt ?? active.timestamp,
            failed: failed, paused: paused, after: active.timestamp)
    }

    /// `previous`: the latest snapshot's timestamp, which this one's never goes below.
    func makeSnapshot(
        _ event: ActivityEvent, attributes: CSVImportActivityAttributes, state: State, now: Date,
        startedAt: Int, failed: Bool = false, paused: Bool = false, after previous: Int? = nil
    ) -> Snapshot {
        // ActivityKit ignores a push not newer than the one it shows: a snapshot in the same
        // second as the previous one, or after the clock moved back, is dated one second after it.
        let timestamp = max(unixSeconds(now), previous.map { $0 + 1 } ?? Int.min)
        func build(_ limit: Int) -> Snapshot {
            var attributes = attributes
            attributes.fileName = attributes.fileName.truncated(toCharacters: limit)
            var state = state
            state.currentStep = state.currentStep.truncated(toCharacters: limit)
            state.currentBookTitle = state.currentBookTitle?.truncated(toCharacters: limit)
            state.currentBookAuthor = state.currentBookAuthor?.truncated(toCharacters: limit)
            let alert: PushAlert?
            switch event {
            case .start:
                alert = PushAlert(
                    title: "Importing \(attributes.fileName)",
                    body: state.totalBooks > 0 ? "\(state.totalBooks) books" : "Starting import")
            case .update where paused:
                // A person must see this one (priority 10): the import waits for them.
                alert = PushAlert(title: "Import paused: \(attributes.fileName)", body: state.currentStep)
            case .update:
                alert = nil
            case .end where failed:
                alert = PushAlert(title: "Import failed: \(attributes.fileName)", body: state.currentStep)
            case .end:
                var parts = [
                    "\(state.successCount) imported", "\(state.duplicateCount) duplicates", "\(state.failureCount) failed",
                ]
                if state.currentStep.contains("to review") { parts.append(state.currentStep) }
                alert = PushAlert(title: "Import finished: \(attributes.fileName)", body: parts.joined(separator: " · "))
            }
            return Snapshot(
                attributesType: CSVImportActivityAttributes.typeName, attributes: attributes, contentState: state,
                event: event, timestamp: timestamp,
                staleDate: timestamp + parameters.importStaleAfterMinutes * 60,
                dismissalDate: timestamp + parameters.importDismissAfterMinutes * 60,
                alert: alert, startedAt: startedAt)
        }
        return PushBodyFitting.fit(build)
    }
}
