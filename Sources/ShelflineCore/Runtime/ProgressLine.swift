import Foundation

/// The text of a live progress line, the one format every progress display uses: a bar,
/// processed/total and percent, the rate and ETA once there is a rate, and the current title.
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
}
