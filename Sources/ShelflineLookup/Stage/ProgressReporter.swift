import Foundation
import ShelflineCore

/// Publishes progress: the JSON file for the orchestrator and render, and a bar on a terminal or
/// periodic logfmt lines for people.
final class ProgressReporter: @unchecked Sendable {
    private let lock = NSLock()
    private var progress: StageProgress
    private let path: String?
    private let terminal: Bool
    private let log: Logfmt
    private let now: @Sendable () -> Date
    private var ticker: Task<Void, Never>?
    private var lastLogLine = 0.0
    private var drewBar = false
    /// A tick that took its snapshot before `finish` cannot overwrite the final state.
    private let writeLock = NSLock()
    private var finalWritten = false

    init(stage: String, total: Int, path: String?, terminal: Bool, log: Logfmt, now: @escaping @Sendable () -> Date) {
        let started = now().timeIntervalSince1970
        progress = StageProgress(stage: stage, processed: 0, total: total, startedAt: started, updatedAt: started)
        self.path = path
        self.terminal = terminal && !log.quiet
        self.log = log
        self.now = now
        publish()
        ticker = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 1_000_000_000)
                self?.publish()
            }
        }
    }

    func update(processed: Int, counts: [String: Int], title: String?, author: String?) {
        lock.withLock {
            progress.processed = processed
            progress.counts = counts
            if let title { progress.currentTitle = title; progress.currentAuthor = author }
        }
    }

    func finish(finished: Bool) {
        ticker?.cancel()
        lock.withLock { progress.finished = finished }
        publish(force: true)
        if drewBar { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    private func publish(force: Bool = false) {
        writeLock.withLock {
            guard !finalWritten else { return }
            finalWritten = force && lock.withLock { progress.finished }
            let snapshot: StageProgress = lock.withLock {
                progress.updatedAt = now().timeIntervalSince1970
                return progress
            }
            if let path { try? writeJSONFile(snapshot, to: path) }
            if terminal {
                drewBar = true
                FileHandle.standardError.write(Data(ProgressLine.redraw(ProgressLine.bar(snapshot)).utf8))
            } else if force || snapshot.updatedAt - lastLogLine >= 5 {
                lastLogLine = snapshot.updatedAt
                log.event([
                    "stage": snapshot.stage, "event": "progress", "processed": snapshot.processed,
                    "total": snapshot.total, "rate": String(format: "%.1f", snapshot.rate ?? 0),
                    "title": snapshot.currentTitle ?? "",
                ])
            }
        }
    }
}
