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

/// How an attempt failed, as the breaker sees it.
enum AttemptFailure: Sendable, Equatable {
    /// The host name did not resolve: the source is out of reach for this run.
    case nameResolution
    /// Nothing accepted the connection (refused, no route, no network): the attempt never reached
    /// the server.
    case unreachable
    /// Anything else: 429, 5xx, timeout, a dropped connection, a malformed body.
    case other
}

/// Stops calling a source after `threshold` consecutive failed attempts; after `cooldown` lets one
/// probe through (half-open) and closes again when it succeeds.
///
/// A source that cannot be reached at all is told apart. When attempts that never reached the
/// server (refused connections) opened the breaker, it is *unreachable*: every request is refused
/// at once, without a pacing slot or a wait, and a probe is due after `unreachableProbeDelay`, then
/// twice as long after each refused probe, up to the cooldown. The client sends that probe on a
/// task of its own (`ResilientHTTPClient.standingFailure()`), so no request and no row waits for
/// it; when it reaches the server the breaker closes and later requests go out again (a restarting
/// server is asked again once it is back). A host name that does not resolve makes the source
/// `offline` for the rest of the run.
///
/// State is behind a lock, not an actor: the engine reads it once per chunk without suspending.
final class CircuitBreaker: @unchecked Sendable {
    enum State: Equatable {
        case closed
        /// Open until `until` (clock offset); `unreachable` when refused connections opened it.
        case open(until: Duration, unreachable: Bool)
        case halfOpen(unreachable: Bool)
        case offline
    }

    /// What an attempt may do.
    enum Admission: Equatable {
        /// Send; `probe` when this attempt is the half-open probe.
        case send(probe: Bool)
        /// The breaker is open after failing answers: fail fast.
        case unavailable
        /// The source refuses connections: fail at once, unsent. `probe`: the probe is due, and the
        /// caller is to send it in the background (the breaker is half-open from now).
        case unreachable(probe: Bool)
        /// The source is out of reach for the rest of the run.
        case offline
    }

    /// The first probe of a source refusing connections goes out this long after the breaker opened.
    static let unreachableProbeDelay: Duration = .seconds(2)

    private let threshold: Int
    private let cooldown: Duration
    private let clock: PacingClock
    private let lock = NSLock()
    private var consecutiveFailures = 0
    /// Probes refused since the breaker last opened for refused connections (each doubles the delay).
    private var refusedProbes = 0
    private var current: State = .closed
    private var tripCount = 0

    init(threshold: Int, cooldownSeconds: Double, clock: PacingClock) {
        self.threshold = threshold
        cooldown = .milliseconds(Int64(cooldownSeconds * 1000))
        self.clock = clock
    }

    var state: State { lock.withLock { current } }
    var trips: Int { lock.withLock { tripCount } }

    /// Whether an attempt may go out now.
    func admit() -> Admission {
        lock.withLock {
            if let refusal = standingRefusal() { return refusal }
            switch current {
            case .open(let until, _) where clock.now >= until:
                current = .halfOpen(unreachable: false)
                return .send(probe: true)
            case .open, .halfOpen: return .unavailable  // one probe at a time
            default: return .send(probe: false)
            }
        }
    }

    /// What every request meets now without being sent (`.unreachable` or `.offline`), nil when
    /// requests may go out (closed, or open after failing answers: those requests take their
    /// pacing slot and fail fast, so that a short outage ends for the rows after it).
    func standing() -> Admission? { lock.withLock { standingRefusal() } }

    /// `standing()` with the lock held; moves to half-open when the unreachable source's probe is due.
    private func standingRefusal() -> Admission? {
        switch current {
        case .offline: return .offline
        case .halfOpen(unreachable: true): return .unreachable(probe: false)
        case .open(let until, unreachable: true):
            guard clock.now >= until else { return .unreachable(probe: false) }
            current = .halfOpen(unreachable: true)
            return .unreachable(probe: true)
        default: return nil
        }
    }

    func recordSuccess() {
        lock.withLock {
            consecutiveFailures = 0
            refusedProbes = 0
            current = .closed
        }
    }

    func recordFailure(_ failure: AttemptFailure) {
        lock.withLock {
            consecutiveFailures += 1
            switch (current, failure) {
            case (.offline, _):
                return
            case (_, .nameResolution):
                if case .closed = current { tripCount += 1 }
                current = .offline
            case (.halfOpen, .unreachable):
                refusedProbes += 1
                current = .open(until: clock.now + probeDelay(), unreachable: true)
            case (.halfOpen, _):
                current = .open(until: clock.now + cooldown, unreachable: false)
            case (.closed, _) where consecutiveFailures >= threshold:
                tripCount += 1
                refusedProbes = 0
                let unreachable = failure == .unreachable
                current = .open(until: clock.now + (unreachable ? probeDelay() : cooldown), unreachable: unreachable)
            default:
                return
            }
        }
    }

    /// The probe ended without an answer either way (its task was cancelled): let another try.
    func abandonProbe() {
        lock.withLock {
            guard case .halfOpen(let unreachable) = current else { return }
            current = .open(until: clock.now, unreachable: unreachable)
        }
    }

    /// `unreachableProbeDelay` doubled for each refused probe, at most the cooldown.
    private func probeDelay() -> Duration {
        min(cooldown, Self.unreachableProbeDelay * (1 << min(refusedProbes, 20)))
    }
}
