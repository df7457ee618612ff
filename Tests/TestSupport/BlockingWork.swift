import Foundation

extension DispatchQueue {
    /// A queue of its own for work that blocks (a pipe read to its end, a process wait, a socket
    /// read, a poll). Serial queues run on libdispatch's overcommit threads, one started whenever
    /// every thread is busy; the global concurrent queue keeps to about one thread per core, so work
    /// blocked there holds up everything queued behind it, in-process servers and compression
    /// included, until the blocked work ends (a suite-wide stall of up to a test's backstop).
    public static func blockingWork(_ label: String = "shelfline.tests.blocking") -> DispatchQueue {
        DispatchQueue(label: label)
    }
}
