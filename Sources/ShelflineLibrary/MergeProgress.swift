import Foundation
import ShelflineCore

/// `merge-progress.json` in lookup's `StageProgress` shape, so the orchestrator's line and the Live
/// Activity keep moving through merge. Each record counts twice (resolved, folded); the file is rewritten
/// at most once a second of the injected clock, checked every 256 records, and at the end.
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
        // Advisory: a failed write never fails the merge.
        try? writeJSONFile(progress, to: path)
    }
}
