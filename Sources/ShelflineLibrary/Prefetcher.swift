import Foundation

/// Runs a producer on a thread of its own, a bounded number of values ahead of the caller, who
/// takes them in order with `next()`: dedupe and merge decode records on one core while they
/// resolve, fold and write on the other (issue 12: merge's decoding was a third of its time).
///
/// At most `depth` values wait in the queue, so memory is bounded by `depth + 2` values (queued,
/// being produced, being used). The producer's error reaches `next()` after every value it emitted
/// before it. `stop()` (also on every error path of the caller) ends the producer and waits for
/// its thread, so whatever it reads is closed when `stop()` returns.
final class Prefetcher<Value>: @unchecked Sendable {
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
    init(depth: Int = 1, produce: @escaping @Sendable (_ emit: (Value) throws -> Void) throws -> Void) {
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
    func next() throws -> Value? {
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
    func stop() {
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

/// Makes `count` values on `threads` threads of their own, at most `ahead` beyond the one the
/// caller takes next, and hands them out in index order with `next()`: merge reads, decodes and
/// folds its buckets on both cores while it writes the library in id order.
///
/// The error making value `i` is thrown by the `next()` that would return it; values after a
/// failure are not made. `stop()` (also on every error path of the caller) waits for the threads.
final class OrderedPrefetcher<Value>: @unchecked Sendable {
    // Every mutable member is guarded by `condition`.
    private let condition = NSCondition()
    private var made: [Int: Result<Value, any Error>] = [:]
    private var claimed = 0
    private var taken = 0
    private var failed = false
    private var stopped = false
    private var running: Int
    private let count: Int
    private let ahead: Int

    init(count: Int, threads: Int, ahead: Int = 2, make: @escaping @Sendable (Int) throws -> Value) {
        self.count = count
        self.ahead = max(1, ahead)
        running = max(1, threads)
        for _ in 0..<running {
            let thread = Thread { [self] in work(make) }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    deinit { stop() }

    private func work(_ make: (Int) throws -> Value) {
        while true {
            condition.lock()
            while claimed - taken >= ahead && !stopped && !failed { condition.wait() }
            guard !stopped, !failed, claimed < count else {
                running -= 1
                condition.broadcast()
                condition.unlock()
                return
            }
            let index = claimed
            claimed += 1
            condition.unlock()
            let result = Result { try make(index) }
            condition.withLock {
                if case .failure = result { failed = true }
                made[index] = result
                condition.broadcast()
            }
        }
    }

    /// The next value in index order, nil after the last; throws the error that value's making threw.
    func next() throws -> Value? {
        condition.lock()
        defer { condition.unlock() }
        guard taken < count else { return nil }
        // After a failure or `stop()`, an index nobody claimed is never made.
        while made[taken] == nil && (taken < claimed || running > 0) { condition.wait() }
        guard let result = made.removeValue(forKey: taken) else { return nil }
        taken += 1
        condition.broadcast()
        return try result.get()
    }

    /// Stops making values and waits for the threads to end. Idempotent.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        made.removeAll()
        condition.unlock()
    }
}
