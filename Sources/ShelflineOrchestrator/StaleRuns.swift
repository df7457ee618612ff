import Foundation
import ShelflineCore

/// Runs left incomplete for more than a day: shown by `status`, removed by `clean --stale`.
public struct StaleRuns: Sendable {
    public var workspace: Workspace
    public var planner: StagePlanner
    public var maximumAge: TimeInterval

    public init(workspace: Workspace, planner: StagePlanner, maximumAge: TimeInterval = 24 * 3600) {
        self.workspace = workspace
        self.planner = planner
        self.maximumAge = maximumAge
    }

    public struct Stale: Sendable {
        public var run: RunDirectory
        public var lastActivity: Date
        public var id: String { run.id }
    }

    public func find(now: Date) -> [Stale] {
        RunDirectory.all(in: workspace).compactMap { run in
            let last = Self.lastActivity(run)
            guard now.timeIntervalSince(last) > maximumAge else { return nil }
            let complete = (try? planner.plan(run: run))?.allSatisfy { $0.1.isUpToDate } ?? false
            return complete ? nil : Stale(run: run, lastActivity: last)
        }
    }

    /// The newest modification time among the run's files and manifests.
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
