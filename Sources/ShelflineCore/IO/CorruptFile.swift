import Foundation

/// Sets aside a state or cache file that cannot be read, so it can be rebuilt and still inspected.
public enum CorruptFile {
    /// Renames `path` to `<path>.corrupt-<UTC time>` (`-2`, `-3`, … if taken).
    public static func setAside(_ path: String, now: Date) throws -> String {
        let time = now.formatted(Date.ISO8601FormatStyle(dateSeparator: .omitted, timeSeparator: .omitted))
        let base = path + ".corrupt-" + time
        var target = base
        var suffix = 2
        while FileManager.default.fileExists(atPath: target) {
            target = base + "-\(suffix)"
            suffix += 1
        }
        guard rename(path, target) == 0 else {
            throw FileError.cannotCreate(path: target, reason: "cannot set aside the corrupt \(path): \(systemErrorMessage())")
        }
        return target
    }
}
