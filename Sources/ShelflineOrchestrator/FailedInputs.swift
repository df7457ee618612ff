import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// Imports that failed, listed on their own in `<workspace>/failed-inputs.json` (`runs/latest`
/// only ever names a successful or paused import): shown by `status`, dropped once the same
/// content imports, once the failed file is gone (`dropMissing`), or by `clean --failed`/`--all`.
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

        /// Its file no longer exists (`FailedInputs.isGone`).
        public var isGone: Bool { FailedInputs.isGone(input) }
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

    /// Drops the entries whose file is gone (deleted or moved: it can never be retried, so it is
    /// no longer pending) and returns them, for the caller to say once. Call holding the
    /// workspace lock. An entry whose file cannot be checked for another reason (permissions) stays.
    public func dropMissing() throws -> [Entry] {
        let list = entries()
        let gone = list.filter { $0.isGone }
        if !gone.isEmpty { try writeJSONFile(list.filter { !$0.isGone }, to: path) }
        return gone
    }

    /// Forgets every entry (`clean --failed`, `clean --all`); returns how many there were.
    @discardableResult
    public func removeAll() throws -> Int {
        let count = entries().count
        if FileManager.default.fileExists(atPath: path) { try writeJSONFile([Entry](), to: path) }
        return count
    }

    /// True when `input` (absolute, as recorded) no longer exists.
    public static func isGone(_ input: String) -> Bool {
        guard input.hasPrefix("/") else { return false }
        var info = stat()
        return stat(input, &info) != 0 && (errno == ENOENT || errno == ENOTDIR)
    }

    /// The one line that says an entry was dropped because its file is gone.
    public static func droppedLine(_ entry: Entry) -> String {
        "forgot the failed import of \(entry.input) (exit \(entry.exitStatus)): the file is gone"
    }

    /// Forgets failures of `input` or of `runId` (it has now imported).
    public func clear(input: String, runId: String?) throws {
        let list = entries()
        let kept = list.filter { $0.input != input && ($0.runId == nil || $0.runId != runId) }
        if kept.count != list.count { try writeJSONFile(kept, to: path) }
    }
}
