#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ShelflineCore
import ShelflineStageCLI
import ShelflineOrchestrator

/// One line per stage on a terminal: a bar, counts, rate and ETA for stages that report progress
/// (lookup), elapsed time for the rest. Prints nothing without a terminal (cron gets logfmt lines).
final class TerminalProgress: @unchecked Sendable {
    private let enabled: Bool
    private var stage: StageName?
    private var started = Date()
    private var lastDraw = Date.distantPast

    init(enabled: Bool) {
        self.enabled = enabled && isatty(STDERR_FILENO) == 1
    }

    func tick(stage: StageName, run: RunDirectory) {
        guard enabled else { return }
        if stage != self.stage {
            finishLine()
            self.stage = stage
            started = Date()
        }
        guard Date().timeIntervalSince(lastDraw) >= 0.25 else { return }
        lastDraw = Date()
        let elapsed = Date().timeIntervalSince(started)
        var line = "\(stage.rawValue): running \(String(format: "%.1f", elapsed)) s"
        if let progress = try? readJSONFile(StageProgress.self, from: run.file("\(stage.rawValue)-progress.json")),
           progress.total > 0 {
            line = "\(stage.rawValue): " + Self.bar(progress)
        }
        FileHandle.standardError.write(Data("\r\u{1B}[2K\(line)".utf8))
    }

    func finish() { finishLine() }

    private func finishLine() {
        if enabled && stage != nil { FileHandle.standardError.write(Data("\n".utf8)) }
        stage = nil
    }

    static func bar(_ progress: StageProgress) -> String {
        let fraction = min(1, Double(progress.processed) / Double(max(progress.total, 1)))
        let width = 24
        let filled = Int(fraction * Double(width))
        var text = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
        text += "\(progress.processed)/\(progress.total) \(Int(fraction * 100))%"
        if let rate = progress.rate {
            let remaining = Double(progress.total - progress.processed) / rate
            text += String(format: " %.1f/s ETA %d:%02d", rate, Int(remaining) / 60, Int(remaining) % 60)
        }
        if let title = progress.currentTitle { text += " — " + String(title.prefix(40)) }
        return text
    }
}
