import Foundation
import ShelflineCore
import Testing

/// Runs each test of a suite on threads of its own rather than on the cooperative pool, a few
/// tests at a time.
///
/// A synchronous test that waits for a child process (`ExecutableRunner.run`, `make`) holds the
/// thread it runs on until the child ends. On the cooperative pool (two threads on a 2-core
/// machine), two such tests held every thread for a minute and more, and every asynchronous test
/// meanwhile, whose answers and deadlines need a pool thread, waited: a loopback server's client ran
/// out of its 120 s deadline with the server idle. Under this trait the test body runs on
/// `BlockingExecutor` (Core); at most `BlockingTests.width` of them at once (as many as the pool held
/// before), the others waiting for their turn without holding a thread.
public struct OffCooperativePool: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // The suite's and the test's own scopes pass through; each test case takes a turn.
        // A nested suite's trait finds its test already off the pool.
        guard testCase != nil, !BlockingTests.holdingTurn else { return try await function() }
        await BlockingTests.turns.acquire()
        do {
            try await BlockingTests.$holdingTurn.withValue(true) {
                try await withTaskExecutorPreference(BlockingExecutor.shared) { try await function() }
            }
        } catch {
            await BlockingTests.turns.release()
            throw error
        }
        await BlockingTests.turns.release()
    }
}

extension Trait where Self == OffCooperativePool {
    /// Runs the tests off the cooperative pool (`OffCooperativePool`).
    public static var offCooperativePool: Self { OffCooperativePool() }
}

enum BlockingTests {
    /// As many tests as the cooperative pool ran at once: the machine's cores.
    static let width = max(2, ProcessInfo.processInfo.activeProcessorCount)
    static let turns = AsyncSemaphore(limit: width)
    @TaskLocal static var holdingTurn = false
}
