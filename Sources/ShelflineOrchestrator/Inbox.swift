import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// A folder where exports are dropped for scheduled imports: each file's content is imported
/// exactly once, whatever its name, and a file still being written is left for the next run.
/// Each file is its own import: one that cannot be read or fails never stops the others.
public struct Inbox: Sendable {
    public var directory: String
    public var workspace: Workspace
    /// A file modified less than this many seconds ago may still be being copied: skip it.
    public var settleSeconds: Double

    /// Content hashes already imported, in `<workspace>/inbox-imported.json`.
    public var ledgerPath: String { workspace.root + "/inbox-imported.json" }

    public struct Ledger: Codable, Sendable {
        /// SHA-256 → file name it was first imported from.
        public var imported: [String: String] = [:]
    }

    /// The ledger. One that cannot be decoded is set aside as `inbox-imported.json.corrupt-<time>`
    /// and rebuilt from the run directories whose import completed (their parse manifest holds
    /// the imported content's hash), so a damaged state file never stops scheduled imports.
    public func ledger(now: Date = Date(), log: Logfmt? = nil) throws -> Ledger {
        guard FileManager.default.fileExists(atPath: ledgerPath) else { return Ledger() }
        do {
            return try readJSONFile(Ledger.self, from: ledgerPath)
        } catch {
            let aside = ledgerPath + ".corrupt-\(Int(now.timeIntervalSince1970))"
            guard rename(ledgerPath, aside) == 0 else {
                throw FileError.io(
                    path: ledgerPath, reason: "unreadable (\(error)) and cannot be set aside: \(systemErrorMessage())")
            }
            let rebuilt = rebuiltLedger()
            try writeJSONFile(rebuilt, to: ledgerPath)
            log?.error(
                "shelfline: \(ledgerPath) could not be read; set aside as \(aside) and rebuilt from \(rebuilt.imported.count) completed runs"
            )
            return rebuilt
        }
    }

    /// Every completed run's imported content (the last stage's manifest exists).
    func rebuiltLedger() -> Ledger {
        var ledger = Ledger()
        for run in RunDirectory.all(in: workspace) {
            guard run.isComplete,
                let hash = run.manifest(.parse)?.inputs.first(where: { $0.name == "{csv}" })?.sha256
            else { continue }
            ledger.imported[hash] = "(rebuilt from runs/\(run.id))"
        }
        return ledger
    }

    public func record(hash: String, name: String, now: Date = Date()) throws {
        var current = try ledger(now: now)
        current.imported[hash] = name
        try writeJSONFile(current, to: ledgerPath)
    }

    /// What one look at the inbox found.
    public struct Scan: Sendable {
        /// Files to import now, oldest name first, each with its content hash.
        public var pending: [(path: String, hash: String)] = []
        /// Files whose content was imported before.
        public var alreadyImported = 0
        /// Files modified within the settle time (perhaps still being written).
        public var settling = 0
        /// Files whose modification time is in the future: never settled, so never imported
        /// until their time is fixed (`touch`).
        public var futureDated: [String] = []
        /// Files that cannot be read, with the error.
        public var unreadable: [(path: String, error: any ShelflineError)] = []
    }

    /// Looks at every regular, non-hidden file of the inbox. Only a missing inbox is an error.
    /// `askAgain`: whether the import of content with this hash, already imported, left rows to ask
    /// again now (`AskAgain`): such a file is pending again.
    public func scan(now: Date, log: Logfmt? = nil, askAgain: (String) -> Bool = { _ in false }) throws -> Scan {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw FileError.missingInput(path: directory, reason: "inbox is not a directory")
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw FileError.missingInput(
                path: directory, reason: "cannot list the inbox: \((error as NSError).localizedFailureReason ?? "\(error)")")
        }
        let done = try ledger(now: now, log: log).imported
        var result = Scan()
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = directory + "/" + name
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
            let age = now.timeIntervalSince1970 - modified
            if age < -max(settleSeconds, 1) {
                result.futureDated.append(name)
                continue
            }
            if age < settleSeconds {
                result.settling += 1
                continue
            }
            let hash: String
            do {
                hash = try ContentHash.file(path)
            } catch let error as any ShelflineError {
                result.unreadable.append((path, error))
                continue
            }
            if done[hash] != nil, !askAgain(hash) {
                result.alreadyImported += 1
            } else if !result.pending.contains(where: { $0.hash == hash }) {
                result.pending.append((path, hash))
            } else {
                result.alreadyImported += 1
            }
        }
        return result
    }
}
