import Dispatch

/// Runs tasks on Dispatch threads instead of Swift's cooperative pool (one thread per core), for
/// work that blocks: `serve`'s registry waits in `flock` for the push lock, which a `shelfline-push
/// send` holds for its whole run (on the pool a few such waits would stall every other request,
/// `/healthz` included), and the test suites that wait for child processes (`.offCooperativePool`).
///
/// Each job gets a serial queue of its own: serial queues run on libdispatch's overcommit threads,
/// one started whenever every thread is busy, where a concurrent queue keeps to about one thread
/// per core, so a few jobs waiting would again hold up the rest.
public final class BlockingExecutor: TaskExecutor {
    public static let shared = BlockingExecutor()
    /// Set on each of its queues: `DispatchQueue.getSpecific(key:)` says whether code runs on one.
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
