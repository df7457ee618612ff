import Foundation

/// Runs a producer on its own thread, at most `depth` values ahead of the caller (memory: `depth
/// + 2` values), so reading and decoding take one core while the stage works on the other. The
/// producer's error reaches `next()` after its values; `stop()` (also on the caller's error paths)
/// waits for its thread, so whatever it reads is closed when `stop()` returns.
public final class Prefetcher<Value>: @unchecked Sendable {
    // Every mutable member is guarded by `condition`.
    private let condition = NSCondition()
    private var queue: [Value] = []
    private let depth: Int
    private var producerDone = false
    private var producerError: (any Error)?
    private var stopped = false
    private let finished = DispatchSemaphore(value: 0)
    private var joined = false

    private struct Stopped: Error {}

    /// `emit` blocks while `depth` values are waiting and throws once the consumer stopped.
    public init(depth: Int = 1, produce: @escaping @Sendable (_ emit: (Value) throws -> Void) throws -> Void) {
        self.depth = max(1, depth)
        let thread = Thread { [self] in run(produce) }
        thread.stackSize = 1 << 20
        thread.start()
    }

    deinit { stop() }

    private func run(_ produce: (_ emit: (Value) throws -> Void) throws -> Void) {
        defer { finished.signal() }
        var failure: (any Error)?
        do {
            try produce { value in
                condition.lock()
                defer { condition.unlock() }
                while queue.count >= depth && !stopped { condition.wait() }
                if stopped { throw Stopped() }
                queue.append(value)
                condition.broadcast()
            }
        } catch is Stopped {
        } catch {
            failure = error
        }
        condition.withLock {
            producerError = failure
            producerDone = true
            condition.broadcast()
        }
    }

    /// The next value, nil after the last one; the producer's error once its values are taken.
    public func next() throws -> Value? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !producerDone { condition.wait() }
        guard !queue.isEmpty else {
            if let producerError { throw producerError }
            return nil
        }
        condition.broadcast()
        return queue.removeFirst()
    }

    /// Idempotent.
    public func stop() {
        let wait = condition.withLock {
            stopped = true
            queue.removeAll()
            condition.broadcast()
            defer { joined = true }
            return !joined
        }
        if wait { finished.wait() }
    }
}
