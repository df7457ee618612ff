import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// The rules for lookup's files in the workspace's `cache/` (the catalog index and the lookup
/// cache): both can be rebuilt from their sources, so damage never stops a run, and a killed
/// build never leaves its scratch file behind for good.
enum CacheFiles {
    /// Opens a rebuildable SQLite file with `open`. When the file is damaged — `open` fails, or
    /// the file is shorter than its own header says (a truncated copy) — it is set aside as
    /// `<path>.corrupt-<time>` (with its `-wal` and `-shm`), one warning line is logged, and
    /// `open` runs again on a fresh file. A second failure is thrown as it is.
    static func opening<T>(_ path: String, what: String, now: Date, log: Logfmt, open: () throws -> T) throws -> T {
        let damage: String
        do {
            if let truncated = truncation(of: path) {
                damage = truncated
            } else {
                return try open()
            }
        } catch LookupError.database(_, let reason) {
            damage = reason
        }
        let aside = try CorruptFile.setAside(path, now: now)
        for side in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: path + side) {
            _ = rename(path + side, aside + side)
        }
        log.error(
            "shelfline-lookup: warning: the \(what) \(path) is damaged (\(damage)); "
                + "set aside as \(aside) and rebuilt")
        return try open()
    }

    /// Why `path` is shorter than its SQLite header says (`page count × page size`), or nil
    /// when it is not (or is no SQLite file at all: opening it says so).
    static func truncation(of path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 100), header.count == 100,
            header.starts(with: Array("SQLite format 3\0".utf8)),
            let size = try? handle.seekToEnd()
        else { return nil }
        func integer(_ offset: Int, _ width: Int) -> Int {
            header[offset..<offset + width].reduce(0) { $0 << 8 | Int($1) }
        }
        let pageSize = integer(16, 2) == 1 ? 65_536 : integer(16, 2)
        let pages = integer(28, 4)
        // The header's page count is valid only when its change counter matches (SQLite's file format).
        guard pages > 0, integer(24, 4) == integer(92, 4), pageSize >= 512 else { return nil }
        let expected = pages * pageSize
        return Int(size) < expected ? "truncated: \(size) bytes of the \(expected) its header names" : nil
    }

    /// Removes the scratch files of catalog index builds (`catalog-….sqlite.building-<pid>`)
    /// whose process no longer exists; a live build's file is left alone.
    static func removeAbandonedBuilds(in directory: String) {
        StaleTemporaryFiles.removeAbandoned(in: directory, prefix: "catalog-", marker: ".sqlite.building-")
    }
}
