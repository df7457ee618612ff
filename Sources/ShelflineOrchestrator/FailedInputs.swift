import Foundation
import ShelflineCore

/// Imports that failed, listed on their own in `<workspace>/failed-inputs.json` (`runs/latest`
/// only ever names a successful or paused import): shown by `status`, dropped once the same
/// content imports.
public struct FailedInputs: Sendable {
    public var workspace: Workspace

    public init(workspace: Workspace) { self.workspace = workspace }

    public var path: String { workspace.root + "/failed-inputs.json" }

    public struct Entry: Codable, Sendable, Equatable {
        public var input: String
        public var runId: String?
        public var exitStatus: Int32
        public var message: String
        /// Unix seconds.
        public var failedAt: Double

        public init(input: String, runId: String?, exitStatus: Int32, message: String, failedAt: Double) {
            self.input = input
            self.runId = runId
            self.exitStatus = exitStatus
            self.message = message
            self.failedAt = failedAt
        }
    }

    /// The list, newest last; an unreadable file counts as empty (it is rewritten on the next change).
    public func entries() -> [Entry] {
        (try? readJSONFile([Entry].self, from: path)) ?? []
    }

    public func record(_ entry: Entry) throws {
        var list = entries().filter { $0.input != entry.input && ($0.runId == nil || $0.runId != entry.runId) }
        list.append(entry)
        try writeJSONFile(list, to: path)
    }

    /// Forgets failures of `input` or of `runId` (it has now imported).
    public func clear(input: String, runId: String?) throws {
        let list = entries()
        let kept = list.filter { $0.input != input && ($0.runId == nil || $0.runId != runId) }
        if kept.count != list.count { try writeJSONFile(kept, to: path) }
    }
}
