import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// One writer per workspace: an `flock` on `<workspace>/.lock`, released by the kernel when the
/// holder exits or is killed, so a dead run never blocks the next.
public final class WorkspaceLock {
    private let descriptor: Int32

    /// Takes the lock or throws `TryLaterError` (exit 75) naming the holder's PID and start time.
    public init(workspace: Workspace, now: Date) throws {
        let path = workspace.lockFile
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileError.cannotCreate(path: path, reason: systemErrorMessage()) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let holder =
                (try? String(contentsOfFile: path, encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "unknown holder"
            close(fd)
            throw TryLaterError("\(workspace.root): workspace is locked by another run (\(holder)); try again later")
        }
        descriptor = fd
        let stamp = ISO8601DateFormatter().string(from: now)
        let text = "pid=\(getpid()) started=\(stamp)\n"
        ftruncate(fd, 0)
        _ = text.withCString { pwrite(fd, $0, strlen($0), 0) }
    }

    deinit {
        ftruncate(descriptor, 0)
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
