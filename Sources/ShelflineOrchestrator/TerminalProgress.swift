import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// The one progress renderer for people. On a terminal (and unless logfmt was asked for): one
/// live line per stage (a bar, counts, rate and ETA when the stage publishes
/// `<stage>-progress.json`, elapsed time otherwise), replaced when the stage ends by a one-line
/// result; logfmt events are not printed, and anything else written (errors, a stage's warnings)
/// first clears the live line, so the two never interleave. Without a terminal it draws nothing
/// and the logfmt events pass through unchanged (cron mail, log files).
final class TerminalProgress: @unchecked Sendable {
    /// True when drawing live lines.
    let drawing: Bool
    /// True when stderr is a terminal (then stages write through `stageOutput`, never to it directly,
    /// so no stage draws a bar of its own).
    let terminal: Bool
    private let now: @Sendable () -> Date
    /// The run's files by role: where each stage's progress file is.
    private let files: RunFiles
    private let lock = NSLock()
    private var stage: StageName?
    private var started = Date()
    private var lastDraw = Date.distantPast
    private var lineShown = false

    /// `enabled`: not `--quiet`; `logfmt`: `--log-format logfmt` (events, never a live line).
    init(
        enabled: Bool, logfmt: Bool = false, files: RunFiles, now: @escaping @Sendable () -> Date = { Date() },
        terminal: Bool = isatty(STDERR_FILENO) == 1
    ) {
        drawing = enabled && !logfmt && terminal
        self.terminal = terminal
        self.files = files
        self.now = now
    }

    /// The run's log: unchanged without live lines; with them, events are dropped and errors
    /// clear the live line before they are written.
    func log(_ base: Logfmt) -> Logfmt {
        guard drawing else { return base }
        return Logfmt(quiet: true) { [self] line in self.printAbove(line) }
    }

    /// A line a stage wrote on stderr: logfmt events are the live line's business; anything else
    /// (errors, warnings) is printed above it.
    func stageOutput(_ line: String) {
        guard drawing else { return write(line + "\n") }
        if Self.isLogfmtEvent(line) { return }
        printAbove(line)
    }

    static func isLogfmtEvent(_ line: String) -> Bool {
        guard let equals = line.firstIndex(of: "="), let space = line.firstIndex(of: " ") ?? Optional(line.endIndex),
            equals < space
        else { return false }
        return line[..<equals].allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == "." }
    }

    func tick(stage: StageName, run: RunDirectory) {
        guard drawing else { return }
        lock.withLock {
            let time = now()
            if stage != self.stage {
                self.stage = stage
                started = time
            }
            guard time.timeIntervalSince(lastDraw) >= 0.25 else { return }
            lastDraw = time
            var line = "\(stage.rawValue): running \(String(format: "%.1f", time.timeIntervalSince(started))) s"
            if let name = files.progress(stage), let progress = try? readJSONFile(StageProgress.self, from: run.file(name)),
                progress.total > 0, !progress.finished || progress.processed > 0
            {
                line = "\(stage.rawValue): " + ProgressLine.bar(progress)
            }
            write(ProgressLine.redraw(line))
            lineShown = true
        }
    }

    /// Replaces the live line with the stage's one-line result.
    func stageEnded(stage: StageName, run: RunDirectory, result: PipelineRunner.StageResult) {
        guard drawing else { return }
        let text: String
        switch result {
        case .skipped: text = "\(stage.rawValue): up to date"
        case .done(let rows, let milliseconds):
            let rowsText = rows.map { "\($0) rows, " } ?? ""
            text = "\(stage.rawValue): done (\(rowsText)\(String(format: "%.1f", Double(milliseconds) / 1000)) s)"
        }
        lock.withLock {
            write("\r\u{1B}[2K" + text + "\n")
            lineShown = false
            self.stage = nil
        }
    }

    /// Ends a live line left open (a failure or a pause part-way through a stage).
    func finish() {
        guard drawing else { return }
        lock.withLock {
            if lineShown { write("\r\u{1B}[2K") }
            lineShown = false
            stage = nil
        }
    }

    private func printAbove(_ line: String) {
        lock.withLock {
            write((lineShown ? "\r\u{1B}[2K" : "") + line + "\n")
            // The live line is redrawn on the next tick.
            lineShown = false
            lastDraw = .distantPast
        }
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
