import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// The progress renderer for people. On a terminal (unless logfmt was asked for): one live line per
/// stage, replaced by a one-line result when it ends; other output first clears the live line, so
/// the two never interleave. Without a terminal it draws nothing and logfmt events pass through.
final class TerminalProgress: @unchecked Sendable {
    let drawing: Bool
    /// Then stages write through `stageOutput`, so no stage draws a bar of its own.
    let terminal: Bool
    private let now: @Sendable () -> Date
    /// Where each stage's progress file is.
    private let files: RunFiles
    private let lock = NSLock()
    private var stage: StageName?
    private var started = Date()
    private var lastDraw = Date.distantPast
    private var lineShown = false

    /// `enabled`: not `--quiet`.
    init(
        enabled: Bool, logfmt: Bool = false, files: RunFiles, now: @escaping @Sendable () -> Date = { Date() },
        terminal: Bool = isatty(STDERR_FILENO) == 1
    ) {
        drawing = enabled && !logfmt && terminal
        self.terminal = terminal
        self.files = files
        self.now = now
    }

    /// With live lines, events are dropped and errors clear the live line first.
    func log(_ base: Logfmt) -> Logfmt {
        guard drawing else { return base }
        return Logfmt(quiet: true) { [self] line in self.printAbove(line) }
    }

    /// A stage's stderr line: logfmt events are dropped for the live line; anything else is printed above it.
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

    /// Ends a live line a failure or pause left open.
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
            lineShown = false
            lastDraw = .distantPast
        }
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
