import Dispatch

/// Runs tasks that block on Dispatch threads, off Swift's one-thread-per-core pool: `serve` waits
/// in `flock` for the push lock (on the pool a few waits would stall every request), tests wait
/// for children. Each job gets its own serial queue: those run on overcommit threads, where a
/// concurrent queue keeps to about one thread per core.
public final class BlockingExecutor: TaskExecutor {
    public static let shared = BlockingExecutor()
    /// Set on each of its queues, so `DispatchQueue.getSpecific(key:)` tells code running on one.
    public static let queueKey = DispatchSpecificKey<Bool>()

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let queue = DispatchQueue(label: "shelfline.blocking")
        queue.setSpecific(key: Self.queueKey, value: true)
        queue.async { job.runSynchronously(on: executor) }
    }
}

/// At most `limit` holders at once; waiters suspend (they hold no thread) and are served in order.
public actor AsyncSemaphore {
    private var available: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    public init(limit: Int) { available = limit }

    public func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    public func release() {
        if waiters.isEmpty {
            available += 1
        } else {
            waiters.removeFirst().resume()
        }
    }
}
