import Foundation
import ShelflineCore

/// `merge-progress.json` while merge runs, in lookup's `StageProgress` shape, so the orchestrator's
/// terminal line and the import Live Activity keep moving through merge.
///
/// Work is counted per record twice: once resolved against the key index (pass 1), once folded into
/// the library (pass 2); `total` is twice the import's records. The file is rewritten at most once
/// a second of the injected clock, checked every 256 records, and once more at the end.
final class MergeProgress {
    private let path: String?
    private let now: (@Sendable () -> Date)?
    private var progress: StageProgress
    private var lastWrite: Double
    private var sinceCheck = 0

    init(path: String?, records: Int, now: (@Sendable () -> Date)?) {
        self.path = path
        self.now = now
        let started = now?().timeIntervalSince1970 ?? 0
        progress = StageProgress(
            stage: StageName.merge.rawValue, processed: 0, total: 2 * records, startedAt: started,
            updatedAt: started)
        lastWrite = started
        write()
    }

    /// `units` more records resolved or folded; `counts` are the outcomes so far.
    func advance(by units: Int, counts: () -> [String: Int], title: String? = nil) {
        guard path != nil else { return }
        progress.processed += units
        sinceCheck += units
        guard sinceCheck >= 256, let now else { return }
        sinceCheck = 0
        let time = now().timeIntervalSince1970
        guard time - lastWrite >= 1 else { return }
        lastWrite = time
        progress.updatedAt = time
        progress.counts = counts()
        if let title { progress.currentTitle = title }
        write()
    }

    /// The last state: every record processed when `finished`.
    func finish(finished: Bool, counts: [String: Int]) {
        guard path != nil else { return }
        if finished { progress.processed = progress.total }
        progress.finished = finished
        progress.counts = counts
        progress.currentTitle = nil
        progress.updatedAt = now?().timeIntervalSince1970 ?? progress.updatedAt
        write()
    }

    private func write() {
        guard let path else { return }
        // Progress is advisory: a failed write never fails the merge.
        try? writeJSONFile(progress, to: path)
    }
}
