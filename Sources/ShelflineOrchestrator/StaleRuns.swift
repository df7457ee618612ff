import Foundation
import ShelflineCore

/// Runs left incomplete for more than a day: shown by `status`, removed by `clean --stale`.
/// Judged by each run's own state: a run whose last stage completed is never stale, whatever
/// today's config says.
public struct StaleRuns: Sendable {
    public var workspace: Workspace
    static let maximumAge: TimeInterval = 24 * 3600

    public init(workspace: Workspace) { self.workspace = workspace }

    public func find(now: Date) -> [(run: RunDirectory, lastActivity: Date)] {
        RunDirectory.all(in: workspace).compactMap { run in
            guard !run.isComplete else { return nil }
            let last = Self.lastActivity(run)
            guard now.timeIntervalSince(last) > Self.maximumAge else { return nil }
            return (run, last)
        }
    }

    static func lastActivity(_ run: RunDirectory) -> Date {
        var newest = Date.distantPast
        for directory in [run.path, run.manifestsDirectory] {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
                let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)
                if let date = attributes?[.modificationDate] as? Date, date > newest { newest = date }
            }
        }
        return newest
    }
}
