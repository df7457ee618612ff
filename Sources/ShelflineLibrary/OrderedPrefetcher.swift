import Foundation

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
