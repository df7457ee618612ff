import Foundation

/// The clock that pacing, backoff, the circuit breaker and its probes run on: any Swift `Clock`
/// measured in `Duration` (`ContinuousClock` in production, a test clock in tests), erased so the
/// HTTP types need not be generic. Times are offsets from when the clock was wrapped.
///
/// Per-request timeouts stay on real time: they bound real I/O, which a test clock cannot make late.
public struct PacingClock: Sendable {
    private let elapsed: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void

    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let start = clock.now
        elapsed = { start.duration(to: clock.now) }
        sleeper = { offset in try await clock.sleep(until: start.advanced(by: offset), tolerance: nil) }
    }

    /// Real time.
    public static var continuous: PacingClock { PacingClock(ContinuousClock()) }

    /// Time since the clock was wrapped.
    public var now: Duration { elapsed() }

    /// Suspends until `offset` (from when the clock was wrapped); throws `CancellationError` when cancelled.
    public func sleep(until offset: Duration) async throws { try await sleeper(offset) }

    public func sleep(for duration: Duration) async throws { try await sleeper(now + duration) }
}

/// Spaces request starts at least `1/rate` seconds apart (no bursts), so the server never sees more
/// than `rate` requests in any one-second window. A small safety factor absorbs network jitter.
actor RateLimiter {
    private let interval: Duration
    private var next: Duration?
    private let clock: PacingClock

    init(requestsPerSecond: Double, safety: Double = 1.04, clock: PacingClock) {
        interval = .nanoseconds(Int64(1_000_000_000 / requestsPerSecond * safety))
        self.clock = clock
    }

    /// Waits for the next free slot; throws `CancellationError` if the task is cancelled meanwhile.
    func acquire() async throws {
        let now = clock.now
        let slot = max(now, next ?? now)
        next = slot + interval
        if slot > now { try await clock.sleep(until: slot) }
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

/// How an attempt failed, as the breaker sees it.
enum AttemptFailure: Sendable, Equatable {
    /// The host name did not resolve: the source is out of reach for this run.
    case nameResolution
    /// Nothing accepted the connection (refused, no route, no network).
    case unreachable
    /// Anything else: 429, 5xx, timeout, a dropped connection, a malformed body.
    case other
}

/// Stops calling a source after `threshold` consecutive failed attempts; after `cooldown` lets one
/// probe through (half-open) and closes again when it succeeds.
///
/// A source that cannot be reached at all is told apart: when the failures that tripped the breaker
/// were refused connections, the probe goes out after `unreachableProbeDelay` (not the full
/// cooldown) and the other requests wait for it rather than failing one by one; when the probe is
/// refused too, or a host name does not resolve, the source is `offline` for the rest of the run
/// and every request fails at once.
actor CircuitBreaker {
    enum State: Equatable {
        case closed
        /// Open until `until` (clock offset); `unreachable` when refused connections tripped it.
        case open(until: Duration, unreachable: Bool)
        case halfOpen(unreachable: Bool)
        case offline
    }

    /// What an attempt may do.
    enum Admission: Equatable {
        /// Send; `probe` when this attempt is the half-open probe.
        case send(probe: Bool)
        /// The breaker is open: fail fast.
        case unavailable
        /// The source is out of reach for the rest of the run.
        case offline
    }

    /// The longest a refusing source waits for its probe.
    static let unreachableProbeDelay: Duration = .seconds(2)

    private let threshold: Int
    private let cooldown: Duration
    private let clock: PacingClock
    private var consecutiveFailures = 0
    private(set) var state: State = .closed
    private(set) var trips = 0
    private var probeWaiters: [CheckedContinuation<Void, Never>] = []

    init(threshold: Int, cooldownSeconds: Double, clock: PacingClock) {
        self.threshold = threshold
        cooldown = .milliseconds(Int64(cooldownSeconds * 1000))
        self.clock = clock
    }

    /// Whether an attempt may go out now. When refused connections opened the breaker, waits for
    /// the probe's outcome instead of failing fast. Throws `CancellationError` when cancelled.
    func admit() async throws -> Admission {
        while true {
            try Task.checkCancellation()
            switch state {
            case .closed:
                return .send(probe: false)
            case .offline:
                return .offline
            case .halfOpen(let unreachable):
                guard unreachable else { return .unavailable }  // one probe at a time
                await withCheckedContinuation { probeWaiters.append($0) }
            case .open(let until, let unreachable):
                if clock.now >= until {
                    state = .halfOpen(unreachable: unreachable)
                    return .send(probe: true)
                }
                guard unreachable else { return .unavailable }
                try await clock.sleep(until: until)
            }
        }
    }

    /// Whether an attempt admitted before it waited for its pacing slot may still go out.
    func stillAllowed() -> Bool { state == .closed }

    func recordSuccess() {
        consecutiveFailures = 0
        state = .closed
        resumeWaiters()
    }

    func recordFailure(_ failure: AttemptFailure) {
        consecutiveFailures += 1
        switch (state, failure) {
        case (.offline, _):
            return
        case (_, .nameResolution), (.halfOpen(unreachable: true), .unreachable):
            if case .closed = state { trips += 1 }
            state = .offline
        case (.halfOpen, _):
            state = .open(until: clock.now + cooldown, unreachable: failure == .unreachable)
        case (.closed, _) where consecutiveFailures >= threshold:
            trips += 1
            let unreachable = failure == .unreachable
            state = .open(until: clock.now + (unreachable ? min(cooldown, Self.unreachableProbeDelay) : cooldown),
                          unreachable: unreachable)
        default:
            return
        }
        resumeWaiters()
    }

    /// The probe ended without an answer either way (its task was cancelled): let another try.
    func abandonProbe() {
        guard case .halfOpen(let unreachable) = state else { return }
        state = .open(until: clock.now, unreachable: unreachable)
        resumeWaiters()
    }

    private func resumeWaiters() {
        let waiters = probeWaiters
        probeWaiters = []
        for waiter in waiters { waiter.resume() }
    }
}
