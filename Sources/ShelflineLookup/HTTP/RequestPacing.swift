import Foundation

/// Spaces request starts at least `1/rate` seconds apart (no bursts), so the server never sees more
/// than `rate` requests in any one-second window. A small safety factor absorbs network jitter.
actor RateLimiter {
    private let interval: Duration
    private var next: ContinuousClock.Instant?
    private let clock = ContinuousClock()

    init(requestsPerSecond: Double, safety: Double = 1.04) {
        interval = .nanoseconds(Int64(1_000_000_000 / requestsPerSecond * safety))
    }

    /// Waits for the next free slot; throws `CancellationError` if the task is cancelled meanwhile.
    func acquire() async throws {
        let now = clock.now
        let slot = max(now, next ?? now)
        next = slot + interval
        if slot > now { try await Task.sleep(until: slot, clock: clock) }
    }
}

/// At most `limit` holders at once; waiters are served in order.
actor AsyncSemaphore {
    private var available: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { available = limit }

    func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func release() {
        if waiters.isEmpty {
            available += 1
        } else {
            waiters.removeFirst().resume()
        }
    }
}

/// Stops calling a source after `threshold` consecutive failed attempts; after `cooldown` lets one
/// probe through (half-open) and closes again when it succeeds.
actor CircuitBreaker {
    enum State: Equatable { case closed, open(until: ContinuousClock.Instant), halfOpen }

    private let threshold: Int
    private let cooldown: Duration
    private var consecutiveFailures = 0
    private(set) var state: State = .closed
    private(set) var trips = 0
    private let clock = ContinuousClock()

    init(threshold: Int, cooldownSeconds: Double) {
        self.threshold = threshold
        cooldown = .milliseconds(Int64(cooldownSeconds * 1000))
    }

    /// Whether an attempt may go out now.
    func allow() -> Bool {
        switch state {
        case .closed: return true
        case .halfOpen: return false  // one probe at a time
        case .open(let until):
            guard clock.now >= until else { return false }
            state = .halfOpen
            return true
        }
    }

    func recordSuccess() {
        consecutiveFailures = 0
        state = .closed
    }

    func recordFailure() {
        consecutiveFailures += 1
        if state == .halfOpen || (state == .closed && consecutiveFailures >= threshold) {
            if state == .closed { trips += 1 }
            state = .open(until: clock.now + cooldown)
        }
    }
}
