import Foundation
import ShelflineCore

/// Rows a stage's last run left for a later run to ask again: lookup's rows no source could answer
/// (offline, breaker open, quota spent, retries exhausted), which its report counts as
/// `rowsToAskAgain`. A run of the same export is otherwise "already imported", and those rows
/// would stay unfilled until something else changed; a stage with such rows runs again (and what
/// follows it), its cache answering the rows it matched before.
public struct AskAgain: Sendable {
    public var files: RunFiles
    /// The last attempt must be at least this old before the rows are asked again, so a scheduled
    /// run every few minutes does not ask an offline source each time (0: every run asks again).
    public var afterSeconds: Double

    public init(files: RunFiles, afterSeconds: Double) {
        self.files = files
        self.afterSeconds = afterSeconds
    }

    /// The default minimum age of the last attempt for inbox runs (`askAgainAfterMinutes`).
    public static let defaultInboxMinutes = 60.0

    private struct Counted: Decodable { var rowsToAskAgain: Int? }

    /// The rows `stage` left in `run` to ask again, when its last attempt finished at least
    /// `afterSeconds` before `now`; 0 when none, or when that attempt is more recent.
    public func rows(_ stage: StageName, in run: RunDirectory, now: Date) -> Int {
        guard let manifest = run.manifest(stage), now.timeIntervalSince1970 - manifest.finishedAt >= afterSeconds,
            let name = files.output(stage, .report),
            let data = FileManager.default.contents(atPath: run.file(name)),
            let rows = (try? JSONDecoder().decode(Counted.self, from: data))?.rowsToAskAgain
        else { return 0 }
        return rows
    }

    /// The rows any stage left in `run` to ask again (`rows`), summed.
    public func rows(in run: RunDirectory, now: Date) -> Int {
        files.stages.reduce(0) { $0 + rows($1.name, in: run, now: now) }
    }

    /// The reason a stage runs again for `rows` rows.
    public static func reason(rows: Int) -> String {
        "asking again for \(rows) row\(rows == 1 ? "" : "s") no source could answer last time"
    }
}
