import Foundation
import Testing

/// Runs each test of a suite on threads of its own rather than on the cooperative pool, a few
/// tests at a time.
///
/// A synchronous test that waits for a child process (`ExecutableRunner.run`, `make`) holds the
/// thread it runs on until the child ends. On the cooperative pool (two threads on a 2-core
/// machine), two such tests held every thread for a minute and more, and every asynchronous test
/// meanwhile, whose answers and deadlines need a pool thread, waited: a loopback server's client ran
/// out of its 120 s deadline with the server idle. Under this trait the test body runs on
/// `BlockingTestExecutor`; at most `BlockingTests.width` of them at once (as many as the pool held
/// before), the others waiting for their turn without holding a thread.
public struct OffCooperativePool: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // The suite's and the test's own scopes pass through; each test case takes a turn.
        // A nested suite's trait finds its test already off the pool.
        guard testCase != nil, !BlockingTests.holdingTurn else { return try await function() }
        await BlockingTests.turns.take()
        do {
            try await BlockingTests.$holdingTurn.withValue(true) {
                try await withTaskExecutorPreference(BlockingTestExecutor.shared) { try await function() }
            }
        } catch {
            await BlockingTests.turns.give()
            throw error
        }
        await BlockingTests.turns.give()
    }
}

extension Trait where Self == OffCooperativePool {
    /// Runs the tests off the cooperative pool (`OffCooperativePool`).
    public static var offCooperativePool: Self { OffCooperativePool() }
}

/// Each job on a serial queue of its own: libdispatch runs those on overcommit threads, started
/// when every thread is busy, so a job that blocks holds no one else's thread.
public final class BlockingTestExecutor: TaskExecutor {
    public static let shared = BlockingTestExecutor()
    /// Set on each of its queues: `DispatchQueue.getSpecific(key:)` says whether code runs on one.
    public static let queueKey = DispatchSpecificKey<Bool>()

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let queue = DispatchQueue(label: "shelfline.tests.off-pool")
        queue.setSpecific(key: Self.queueKey, value: true)
        queue.async { job.runSynchronously(on: executor) }
    }
}

enum BlockingTests {
    /// As many tests as the cooperative pool ran at once: the machine's cores.
    static let width = max(2, ProcessInfo.processInfo.activeProcessorCount)
    static let turns = Turns(width)
    @TaskLocal static var holdingTurn = false
}

/// A counting semaphore whose waiters suspend rather than block.
actor Turns {
    private var free: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(_ count: Int) { free = count }

    func take() async {
        if free > 0 {
            free -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func give() {
        if waiting.isEmpty {
            free += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
