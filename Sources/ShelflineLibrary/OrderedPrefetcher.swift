import Foundation

/// Makes `count` values on `threads` threads, at most `ahead` beyond the caller's next, handed out in
/// index order. The error making value `i` is thrown by the `next()` that would return it; values after
/// it are not made. `stop()` (on every error path of the caller too) waits for the threads.
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

    /// Nil after the last.
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

    /// Idempotent.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        made.removeAll()
        condition.unlock()
    }
}
