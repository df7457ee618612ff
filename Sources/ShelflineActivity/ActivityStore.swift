import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// One activity's files in `<workspace>/activity/`: the latest snapshot (`<name>.json`) and every
/// snapshot emitted (`<name>.history.ndjson`, oldest first) for a sender to replay; both atomic.
public struct ActivityStore: Sendable {
    public var directory: String
    public var name: String
    /// Lines kept in the history; the oldest are dropped beyond it.
    public var historyLimit: Int

    public static let defaultHistoryLimit = 1000

    public init(workspace: Workspace, name: String, historyLimit: Int = ActivityStore.defaultHistoryLimit) {
        self.directory = workspace.activityDirectory
        self.name = name
        self.historyLimit = max(1, historyLimit)
    }

    public var snapshotPath: String { directory + "/\(name).json" }
    public var historyPath: String { directory + "/\(name).history.ndjson" }
    public var lockPath: String { directory + "/.\(name).lock" }

    /// Runs `body` holding this activity's `flock`, so two runs (cron and a user-triggered refresh)
    /// never interleave their read-decide-publish steps.
    public func withLock<T>(_ body: () throws -> T) throws -> T {
        try Workspace.makeDirectory(directory)
        let fd = try FileLock.acquire(lockPath)
        defer { FileLock.release(fd) }
        return try body()
    }

    /// The latest snapshot, nil when none; one that does not decode (edited by hand) is an error.
    public func latest<A, S>(_ type: ActivitySnapshot<A, S>.Type) throws -> ActivitySnapshot<A, S>? {
        guard FileManager.default.fileExists(atPath: snapshotPath) else { return nil }
        return try readJSONFile(type, from: snapshotPath)
    }

    public func publish<A, S>(_ snapshot: ActivitySnapshot<A, S>) throws {
        try Workspace.makeDirectory(directory)
        var line = try JSONEncoder.shelfline.encode(snapshot)
        line.append(UInt8(ascii: "\n"))
        var history = [UInt8]()
        if let existing = FileManager.default.contents(atPath: historyPath) {
            history = Self.lastLines(of: [UInt8](existing), keeping: historyLimit - 1)
        }
        history.append(contentsOf: line)
        // History first: if the snapshot write then fails, a replay still has every emitted state.
        try AtomicFile.write(history, to: historyPath)
        try writeJSONFile(snapshot, to: snapshotPath)
    }

    public func history<A, S>(_ type: ActivitySnapshot<A, S>.Type) throws -> [ActivitySnapshot<A, S>] {
        guard let data = FileManager.default.contents(atPath: historyPath) else { return [] }
        var result: [ActivitySnapshot<A, S>] = []
        for (index, line) in data.split(separator: UInt8(ascii: "\n")).enumerated() where !line.isEmpty {
            do {
                result.append(try JSONDecoder().decode(type, from: Data(line)))
            } catch {
                throw FileError.corrupt(path: historyPath, line: index + 1, reason: "invalid snapshot")
            }
        }
        return result
    }

    /// The last `count` complete lines of `bytes` (a partial last line is dropped).
    static func lastLines(of bytes: [UInt8], keeping count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        let newlines = bytes.indices.filter { bytes[$0] == UInt8(ascii: "\n") }
        let end = (newlines.last ?? -1) + 1
        let start = newlines.count > count ? newlines[newlines.count - count - 1] + 1 : 0
        return Array(bytes[start..<end])
    }
}
