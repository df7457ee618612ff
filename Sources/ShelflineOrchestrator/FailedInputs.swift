import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// Imports that failed (`runs/latest` only names a successful or paused one): shown by `status`,
/// dropped once the content imports, once the file is gone, or by `clean --failed`/`--all`.
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

        public var isGone: Bool { FailedInputs.isGone(input) }
    }

    /// Newest last; an unreadable file counts as empty (it is rewritten on the next change).
    public func entries() -> [Entry] {
        (try? readJSONFile([Entry].self, from: path)) ?? []
    }

    public func record(_ entry: Entry) throws {
        var list = entries().filter { $0.input != entry.input && ($0.runId == nil || $0.runId != entry.runId) }
        list.append(entry)
        try writeJSONFile(list, to: path)
    }

    /// Drops and returns the entries whose file is gone (it can never be retried), for the caller
    /// to say once; call holding the workspace lock.
    public func dropMissing() throws -> [Entry] {
        let list = entries()
        let gone = list.filter { $0.isGone }
        if !gone.isEmpty { try writeJSONFile(list.filter { !$0.isGone }, to: path) }
        return gone
    }

    /// Forgets every entry; returns how many there were.
    @discardableResult
    public func removeAll() throws -> Int {
        let count = entries().count
        if FileManager.default.fileExists(atPath: path) { try writeJSONFile([Entry](), to: path) }
        return count
    }

    /// A file that cannot be checked for another reason (permissions) is not gone.
    public static func isGone(_ input: String) -> Bool {
        guard input.hasPrefix("/") else { return false }
        var info = stat()
        return stat(input, &info) != 0 && (errno == ENOENT || errno == ENOTDIR)
    }

    public static func droppedLine(_ entry: Entry) -> String {
        "forgot the failed import of \(entry.input) (exit \(entry.exitStatus)): the file is gone"
    }

    /// Forgets failures of `input` or of `runId`, now imported.
    public func clear(input: String, runId: String?) throws {
        let list = entries()
        let kept = list.filter { $0.input != input && ($0.runId == nil || $0.runId != runId) }
        if kept.count != list.count { try writeJSONFile(kept, to: path) }
    }
}
