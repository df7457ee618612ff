import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Waits for a condition another process brings about (a lock taken, a child started), checking
/// it every 20 ms. Returns false once `timeout` passes, so callers fail loudly with
/// `#require(waitUntil(…), "what did not happen")` instead of carrying on as if it had.
/// The timeout is a safety net for a loaded machine, never something a test measures.
public func waitUntil(timeout: TimeInterval = 60, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { return false }
        usleep(20_000)
    }
    return true
}
