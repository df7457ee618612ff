import Foundation

/// Runs a producer on a thread of its own, a bounded number of values ahead of the caller, who
/// takes them in order with `next()`: every stage's reader inflates its input on one core while the
/// stage works on the other (`ReadAhead`), and dedupe and merge decode records on one core while
/// they resolve, fold and write on the other (measured: decoding was a third of merge's time).
///
/// At most `depth` values wait in the queue, so memory is bounded by `depth + 2` values (queued,
/// being produced, being used). The producer's error reaches `next()` after every value it emitted
/// before it. `stop()` (also on every error path of the caller) ends the producer and waits for
/// its thread, so whatever it reads is closed when `stop()` returns.
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

    /// Starts `produce` on its own thread; it hands out values through `emit`, which blocks while
    /// `depth` values are waiting and throws once the consumer stopped.
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

    /// Ends the producer (if still running) and waits for its thread. Idempotent.
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
