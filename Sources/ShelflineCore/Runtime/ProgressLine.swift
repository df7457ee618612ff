import Foundation

/// The one live progress line (`shelfline run`'s, `shelfline-lookup`'s by hand) and its redrawing.
public enum ProgressLine {
    public static func bar(_ progress: StageProgress, width: Int = 24) -> String {
        let fraction = progress.total > 0 ? min(1, Double(progress.processed) / Double(progress.total)) : 1
        let filled = Int((fraction * Double(width)).rounded(.down))
        var text = "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
        text += "\(progress.processed)/\(progress.total) \(Int(fraction * 100))%"
        if let rate = progress.rate {
            let remaining = Double(max(0, progress.total - progress.processed)) / rate
            text += String(format: " %.1f/s ETA %d:%02d", rate, Int(remaining) / 60, Int(remaining) % 60)
        }
        if let title = progress.currentTitle {
            text += " — " + String((title + (progress.currentAuthor.map { " / \($0)" } ?? "")).prefix(40))
        }
        return text
    }

    /// `line` over the previous one, cut to the terminal's width: a wrapped line `\r` cannot erase.
    public static func redraw(_ line: String, columns: Int = terminalColumns()) -> String {
        "\r\u{1B}[2K" + (line.count < columns ? line : String(line.prefix(max(columns - 1, 1))))
    }

    /// Of stderr's terminal; 80 when it cannot be told.
    public static func terminalColumns() -> Int {
        var size = winsize()
        return ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    }
}
