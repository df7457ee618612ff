import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// A folder where exports are dropped for scheduled imports: each content is imported exactly once,
/// whatever its name, and a file still being written is left for the next run.
public struct Inbox: Sendable {
    public var directory: String
    public var workspace: Workspace
    /// A file modified more recently may still be being copied.
    public var settleSeconds: Double

    /// Content hashes already imported.
    public var ledgerPath: String { workspace.root + "/inbox-imported.json" }

    public struct Ledger: Codable, Sendable {
        /// SHA-256 → file name it was first imported from.
        public var imported: [String: String] = [:]
    }

    /// The ledger; one that cannot be decoded is set aside and rebuilt from the completed runs, so
    /// a damaged state file never stops scheduled imports.
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

    /// Every completed run's imported content (parse's manifest holds its hash).
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

    public struct Scan: Sendable {
        /// In name order.
        public var pending: [(path: String, hash: String)] = []
        public var alreadyImported = 0
        public var settling = 0
        /// Never settled, so never imported until their time is fixed (`touch`).
        public var futureDated: [String] = []
        public var unreadable: [(path: String, error: any ShelflineError)] = []
    }

    /// Looks at every regular, non-hidden file of the inbox; only a missing inbox is an error.
    /// `askAgain`: whether an imported content's rows are to be asked again (then it is pending).
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
            if (done[hash] != nil && !askAgain(hash)) || result.pending.contains(where: { $0.hash == hash }) {
                result.alreadyImported += 1
            } else {
                result.pending.append((path, hash))
            }
        }
        return result
    }
}
