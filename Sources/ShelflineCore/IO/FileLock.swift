import Foundation

/// An exclusive `flock` on a lock file, for read-decide-publish steps that two processes must not
/// interleave. The kernel drops the lock when the process dies, so a killed holder never blocks.
public enum FileLock {
    /// Waits until this process holds the lock; pass the result to `release`.
    public static func acquire(_ path: String) throws -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FileError.cannotCreate(path: path, reason: systemErrorMessage()) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let reason = systemErrorMessage()
                close(fd)
                throw FileError.io(path: path, reason: "flock: \(reason)")
            }
        }
        return fd
    }

    public static func release(_ fd: Int32) {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
