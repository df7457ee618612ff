import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Waits, without sleeping, for a condition another process or thread brings about (a lock taken,
/// a stage started, requests arrived): the condition is checked once at the start and again after
/// each event that could have changed it — a file-system change anywhere under `watching` (inotify,
/// directories followed recursively, a file's own directory watched), or `TestEvent.post()` from
/// in-process code (the loopback servers post one per request). Between events the thread blocks
/// in `poll(2)`; nothing wakes it on a timer. Returns false once `timeout` passes without the
/// condition, so callers fail loudly with `#require(waitUntil(…), "what did not happen")`.
///
/// The bound (default 120 s) is a safety net for a loaded 2-core machine running the suite in
/// parallel, never something a test measures: every condition here comes true within seconds.
///
/// `recheckingEvery`: only for a condition no event announces (another process's lock waiters in
/// `/proc/locks`, a port that stops accepting), checked again after that interval as well. Every
/// other caller leaves it nil.
public func waitUntil(
    timeout: TimeInterval = 120, watching paths: [String] = [], recheckingEvery interval: TimeInterval? = nil,
    _ condition: () -> Bool
) -> Bool {
    if condition() { return true }
    let events = EventWait(watching: paths)
    defer { events.close() }
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        // Checked after the watches are in place: a change before them is seen here.
        if condition() { return true }
        let remaining = deadline.timeIntervalSinceNow
        if remaining <= 0 { return false }
        events.wait(milliseconds: Int32(min(min(remaining, interval ?? remaining) * 1000, Double(Int32.max))))
    }
}

/// Wakes every `waitUntil` in this process to check its condition again: in-process code whose
/// state a test waits on (a server counting requests) posts one after each change.
public enum TestEvent {
    private static let waiters = LockedValue<[Int32: Int32]>([:])

    /// Tells every waiter that something changed.
    public static func post() {
        // Written under the lock: a waiter closes its pipe under it too, so no byte can go to a
        // descriptor number reused since.
        waiters.withLock { waiters in
            var byte: UInt8 = 1
            for descriptor in waiters.values { _ = write(descriptor, &byte, 1) }
        }
    }

    static func register(read: Int32, write: Int32) { waiters.withLock { $0[read] = write } }
    /// Stops posting to the pipe `read`/`write` and closes both ends.
    static func unregister(read: Int32, write: Int32) {
        waiters.withLock { waiters in
            waiters.removeValue(forKey: read)
            Glibc.close(read)
            Glibc.close(write)
        }
    }
}

extension Process {
    /// Posts a `TestEvent` when the process exits, so a `waitUntil { !process.isRunning }` wakes
    /// then, not on a timer. Set before `run()`; replaces any termination handler.
    public func postingOnExit() {
        terminationHandler = { _ in TestEvent.post() }
    }
}

/// A small lock around a value (Foundation's `NSLock`, so TestSupport needs no newer toolchain API).
final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}

/// The descriptors one `waitUntil` blocks on: an inotify instance for its paths and its own pipe
/// for `TestEvent.post()`.
private final class EventWait {
    private let inotify: Int32
    private var pipeEnds: [Int32] = [-1, -1]
    private var watched: [Int32: String] = [:]
    private static let mask = UInt32(IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ATTRIB)

    init(watching paths: [String]) {
        inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        if pipe(&pipeEnds) == 0 {
            for descriptor in pipeEnds {
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
                _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            }
            TestEvent.register(read: pipeEnds[0], write: pipeEnds[1])
        }
        for path in paths {
            // A file, or a path not there yet: the nearest directory that exists (directories
            // created below it are watched as they appear).
            var directory = path
            var isDirectory: ObjCBool = false
            while !(FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) && isDirectory.boolValue),
                directory.count > 1
            {
                directory = (directory as NSString).deletingLastPathComponent
            }
            watchTree(directory)
        }
    }

    /// Watches `directory` and every directory below it.
    private func watchTree(_ directory: String) {
        guard inotify >= 0 else { return }
        let descriptor = inotify_add_watch(inotify, directory, Self.mask)
        guard descriptor >= 0 else { return }
        watched[descriptor] = directory
        let children = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for child in children {
            var isDirectory: ObjCBool = false
            let path = directory + "/" + child
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue,
                !watched.values.contains(path)
            {
                watchTree(path)
            }
        }
    }

    /// Blocks until an event or `milliseconds` pass; consumes what arrived, watching new directories.
    func wait(milliseconds: Int32) {
        var descriptors = [
            pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
            pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0),
        ]
        guard poll(&descriptors, 2, milliseconds) > 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 1 << 14)
        while pipeEnds[0] >= 0, read(pipeEnds[0], &buffer, buffer.count) > 0 {}
        guard inotify >= 0 else { return }
        while true {
            let count = read(inotify, &buffer, buffer.count)
            guard count > 0 else { return }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let event = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self) }
                let nameStart = offset + MemoryLayout<inotify_event>.size
                if event.mask & UInt32(IN_ISDIR) != 0, event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0, event.len > 0,
                    let directory = watched[event.wd]
                {
                    let name = buffer[nameStart..<(nameStart + Int(event.len))].prefix { $0 != 0 }
                    watchTree(directory + "/" + String(decoding: name, as: UTF8.self))
                }
                offset = nameStart + Int(event.len)
            }
        }
    }

    func close() {
        if pipeEnds[0] >= 0 { TestEvent.unregister(read: pipeEnds[0], write: pipeEnds[1]) }
        if inotify >= 0 { Glibc.close(inotify) }
    }
}
