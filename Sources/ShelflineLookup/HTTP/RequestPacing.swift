import Foundation

/// The clock pacing, backoff and the breaker run on, erased so the HTTP types need not be generic;
/// times are offsets from when it was wrapped. Timeouts stay on real time: they bound real I/O.
public struct PacingClock: Sendable {
    private let elapsed: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void

    public init<C: Clock>(_ clock: C) where C.Duration == Duration {
        let start = clock.now
        elapsed = { start.duration(to: clock.now) }
        sleeper = { offset in try await clock.sleep(until: start.advanced(by: offset), tolerance: nil) }
    }

    public static var continuous: PacingClock { PacingClock(ContinuousClock()) }

    public var now: Duration { elapsed() }

    /// Throws `CancellationError` when cancelled.
    public func sleep(until offset: Duration) async throws { try await sleeper(offset) }

    public func sleep(for duration: Duration) async throws { try await sleeper(now + duration) }
}

/// Spaces request starts `1/rate` s apart (no bursts); the safety factor absorbs network jitter.
actor RateLimiter {
    private let interval: Duration
    private var next: Duration?
    private let clock: PacingClock

    init(requestsPerSecond: Double, safety: Double = 1.04, clock: PacingClock) {
        interval = .nanoseconds(Int64(1_000_000_000 / requestsPerSecond * safety))
        self.clock = clock
    }

    func acquire() async throws {
        let now = clock.now
        let slot = max(now, next ?? now)
        next = slot + interval
        if slot > now { try await clock.sleep(until: slot) }
    }
}

/// How an attempt failed, as the breaker sees it.
enum AttemptFailure: Sendable, Equatable {
    /// Out of reach for this run.
    case nameResolution
    /// Nothing accepted the connection: the attempt never reached the server.
    case unreachable
    /// 429, 5xx, timeout, a dropped connection, a malformed body.
    case other
}

/// Opens after `threshold` consecutive failed attempts; after `cooldown` lets one probe through.
///
/// Opened by refused connections it is *unreachable*: requests fail at once, unpaced, and a
/// background probe is due after a delay doubling per refusal. A lock, not an actor: the engine
/// reads it without suspending.
final class CircuitBreaker: @unchecked Sendable {
    enum State: Equatable {
        case closed
        case open(until: Duration, unreachable: Bool)
        case halfOpen(unreachable: Bool)
        case offline
    }

    enum Admission: Equatable {
        case send(probe: Bool)
        /// Open after failing answers: fail fast.
        case unavailable
        /// Fail at once, unsent; `probe`: the caller is to send the due probe in the background.
        case unreachable(probe: Bool)
        case offline
    }

    static let unreachableProbeDelay: Duration = .seconds(2)

    private let threshold: Int
    private let cooldown: Duration
    private let clock: PacingClock
    private let lock = NSLock()
    private var consecutiveFailures = 0
    /// Each doubles the probe delay.
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

    /// `.unreachable` or `.offline`; nil while requests may go out (open after failing answers,
    /// they take their slot and fail fast, so a short outage ends for the rows after it).
    func standing() -> Admission? { lock.withLock { standingRefusal() } }

    /// Moves to half-open when the unreachable source's probe is due.
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

    /// The probe's task was cancelled: let another try.
    func abandonProbe() {
        lock.withLock {
            guard case .halfOpen(let unreachable) = current else { return }
            current = .open(until: clock.now, unreachable: unreachable)
        }
    }

    private func probeDelay() -> Duration {
        min(cooldown, Self.unreachableProbeDelay * (1 << min(refusedProbes, 20)))
    }
}
