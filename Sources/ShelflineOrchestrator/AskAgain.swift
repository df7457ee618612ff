import Foundation
import ShelflineCore

/// Rows a stage's last run could not get answered (lookup offline, quota spent: its report's
/// `rowsToAskAgain`). Otherwise a rerun is "already imported" and they stay unfilled; the stage
/// runs again instead, its cache answering the rows it matched before.
public struct AskAgain: Sendable {
    public var files: RunFiles
    /// The minimum age of the last attempt, so a run every few minutes does not ask an offline source each time.
    public var afterSeconds: Double

    /// The default `askAgainAfterMinutes` of inbox runs.
    public static let defaultInboxMinutes = 60.0

    private struct Counted: Decodable { var rowsToAskAgain: Int? }

    /// The rows `stage` left in `run` to ask again; 0 when its last attempt is more recent than `afterSeconds`.
    public func rows(_ stage: StageName, in run: RunDirectory, now: Date) -> Int {
        guard let manifest = run.manifest(stage), now.timeIntervalSince1970 - manifest.finishedAt >= afterSeconds,
            let name = files.output(stage, .report),
            let data = FileManager.default.contents(atPath: run.file(name)),
            let rows = (try? JSONDecoder().decode(Counted.self, from: data))?.rowsToAskAgain
        else { return 0 }
        return rows
    }

    public func rows(in run: RunDirectory, now: Date) -> Int {
        files.stages.reduce(0) { $0 + rows($1.name, in: run, now: now) }
    }

    public static func reason(rows: Int) -> String {
        "asking again for \(rows) row\(rows == 1 ? "" : "s") no source could answer last time"
    }
}
