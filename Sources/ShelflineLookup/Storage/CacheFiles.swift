import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// Lookup's files in `cache/` can be rebuilt: damage never stops a run, and no scratch file stays.
enum CacheFiles {
    /// A damaged or truncated file is set aside with its `-wal` and `-shm` and opened fresh.
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

    /// Nil too for a file that is no SQLite file at all (opening it says so).
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
}
