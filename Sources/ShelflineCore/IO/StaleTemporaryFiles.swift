import Foundation

/// Removes temporary files left behind by processes that died before they could clean up: stale
/// when no process has the PID in the name (`ESRCH`); those of live processes are left alone.
public enum StaleTemporaryFiles {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var swept: Set<String> = []

    /// Sweeps `directory` the first time this process writes there.
    public static func sweepOnce(directory: String) {
        let first = lock.withLock { swept.insert(directory).inserted }
        if first { sweep(directory: directory) }
    }

    @discardableResult
    public static func sweep(directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var removed: [String] = []
        while let entry = readdir(handle) {
            // Read in place: a readdir record is only `d_reclen` bytes, so copying the whole
            // `dirent` (256-byte `d_name`) could read past readdir's buffer and crash.
            let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
            let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
            guard let pid = owner(ofTemporary: name), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH && unlink(directory + "/" + name) == 0 {
                removed.append(name)
            }
        }
        return removed
    }

    /// Removes the entries of `directory` (whole directories too) whose name holds, after `marker`,
    /// the PID of a process that is gone: a killed catalog build's, merge's or rebuild's scratch.
    @discardableResult
    public static func removeAbandoned(in directory: String, prefix: String = "", marker: String) -> [String] {
        var removed: [String] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasPrefix(prefix) {
            guard let range = name.range(of: marker) else { continue }
            let digits = name[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits.count <= 9, let pid = pid_t(digits), pid > 0, pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH && (try? FileManager.default.removeItem(atPath: directory + "/" + name)) != nil
            {
                removed.append(name)
            }
        }
        return removed
    }

    /// The PID in a temporary's name (`.NAME.tmp-PID` or `.NAME.tmp-PID-SUFFIX`), else nil.
    static func owner(ofTemporary name: String) -> pid_t? {
        guard name.hasPrefix("."), let marker = name.range(of: ".tmp-", options: .backwards) else { return nil }
        let digits = name[marker.upperBound...].prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 9 else { return nil }
        let rest = name[marker.upperBound...].dropFirst(digits.count)
        guard rest.isEmpty || rest.hasPrefix("-") else { return nil }
        guard let pid = pid_t(digits), pid > 0 else { return nil }
        return pid
    }
}
