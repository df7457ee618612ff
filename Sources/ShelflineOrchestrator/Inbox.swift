#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ShelflineCore

/// A folder where exports are dropped for scheduled imports: each file's content is imported
/// exactly once, whatever its name, and a file still being written is left for the next run.
public struct Inbox: Sendable {
    public var directory: String
    public var workspace: Workspace
    /// A file modified less than this many seconds ago may still be being copied: skip it.
    public var settleSeconds: Double

    public init(directory: String, workspace: Workspace, settleSeconds: Double) {
        self.directory = directory
        self.workspace = workspace
        self.settleSeconds = settleSeconds
    }

    /// Content hashes already imported, in `<workspace>/inbox-imported.json`.
    var ledgerPath: String { workspace.root + "/inbox-imported.json" }

    public struct Ledger: Codable, Sendable {
        /// SHA-256 → file name it was first imported from.
        public var imported: [String: String] = [:]
    }

    public func ledger() throws -> Ledger {
        guard FileManager.default.fileExists(atPath: ledgerPath) else { return Ledger() }
        return try readJSONFile(Ledger.self, from: ledgerPath)
    }

    public func record(hash: String, name: String) throws {
        var current = try ledger()
        current.imported[hash] = name
        try writeJSONFile(current, to: ledgerPath)
    }

    /// The files to import now, oldest name first, each with its content hash.
    public func pending(now: Date) throws -> [(path: String, hash: String)] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw FileError.missingInput(path: directory, reason: "inbox is not a directory")
        }
        let done = try ledger().imported
        var result: [(String, String)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: directory).sorted() where !name.hasPrefix(".") {
            let path = directory + "/" + name
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            if now.timeIntervalSince1970 - modified < settleSeconds { continue }
            let hash = try ContentHash.file(path)
            if done[hash] == nil && !result.contains(where: { $0.1 == hash }) { result.append((path, hash)) }
        }
        return result
    }
}
