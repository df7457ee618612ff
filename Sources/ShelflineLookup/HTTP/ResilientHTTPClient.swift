import Foundation

/// What happened on the wire, for the report.
public struct HTTPCounters: Codable, Sendable, Equatable {
    /// Attempts sent (each retry counts).
    public var requests = 0
    public var retries = 0
    public var rateLimited = 0
    public var serverErrors = 0
    public var timeouts = 0
    public var connectionErrors = 0
    public var malformedResponses = 0
    /// Answers cut off at `maxResponseBytes` (each also failed its attempt, like a malformed one).
    public var oversizedResponses = 0
    public var breakerTrips = 0
    /// Seconds spent sleeping in backoff.
    public var backoffSeconds = 0.0
    /// Requests not sent because the breaker was open or the source offline when their turn came.
    /// Once a source is known offline the engine stops asking it (`standingFailure`), so this stays
    /// at the few requests already queued when that became known.
    public var notSent = 0
    /// Why the source was found out of reach (name resolution failed, connection refused after the
    /// breaker's probe); nil when it was reachable. Requests after that were not sent.
    public var offline: String?
    public init() {}
}

/// Limits and retry policy of one HTTP source, taken from its parameters (whose defaults are the
/// only ones: `OpenLibraryParameters`).
public struct HTTPPolicy: Sendable {
    public var concurrency: Int
    public var requestsPerSecond: Double
    public var timeoutSeconds: Double
    public var maxRetries: Int
    public var backoffBaseSeconds: Double
    public var backoffMaxSeconds: Double
    public var waitBudgetSeconds: Double
    public var breakerThreshold: Int
    public var breakerCooldownSeconds: Double
    public var userAgent: String
    /// The largest answer read; a longer one is cut off while it streams in.
    public var maxResponseBytes: Int

    init(_ parameters: OpenLibraryParameters) {
        concurrency = parameters.concurrency
        requestsPerSecond = parameters.requestsPerSecond
        timeoutSeconds = parameters.timeoutSeconds
        maxRetries = parameters.maxRetries
        backoffBaseSeconds = parameters.backoffBaseSeconds
        backoffMaxSeconds = parameters.backoffMaxSeconds
        waitBudgetSeconds = parameters.waitBudgetSeconds
        breakerThreshold = parameters.breakerThreshold
        breakerCooldownSeconds = parameters.breakerCooldownSeconds
        userAgent = parameters.userAgent
        maxResponseBytes = parameters.maxResponseBytes
    }
}

/// A GET client that is polite and never hangs: bounded concurrency, evenly paced requests,
/// per-request timeouts, answers read against a size limit while they stream in, exponential
/// backoff with jitter on 429/5xx/timeouts/connection errors and malformed or oversized bodies,
/// bounded retries, a per-run wait budget, and a circuit breaker.
public final class ResilientHTTPClient: Sendable {
    public let source: String
    let policy: HTTPPolicy
    let clock: PacingClock
    private let limiter: RateLimiter
    private let gate: AsyncSemaphore
    let breaker: CircuitBreaker
    private let counters = Counters()
    private let pacing = PacingWaiters()

    /// `clock` drives pacing, backoff and the breaker (not the per-request timeout, which is real time).
    public init(source: String, policy: HTTPPolicy, clock: PacingClock = .continuous) {
        self.source = source
        self.policy = policy
        self.clock = clock
        limiter = RateLimiter(requestsPerSecond: policy.requestsPerSecond, clock: clock)
        gate = AsyncSemaphore(limit: policy.concurrency)
        breaker = CircuitBreaker(threshold: policy.breakerThreshold, cooldownSeconds: policy.breakerCooldownSeconds, clock: clock)
    }

    public func snapshot() async -> HTTPCounters {
        var value = counters.value
        value.breakerTrips = await breaker.trips
        return value
    }

    /// Whether the source was found out of reach; then every request fails at once as `offline`.
    public var isOffline: Bool { get async { await breaker.state == .offline } }

    /// Whether a request of this client found the source out of reach (`HTTPCounters.offline` is
    /// set then): read without waiting for the breaker's actor.
    public var knownOffline: Bool { counters.value.offline != nil }

    /// GETs `url` and hands a 200 body to `decode`; a decode error counts as a failed attempt.
    public func get<T: Sendable>(_ url: URL, decode: @Sendable (Data) throws -> T) async throws -> T {
        var lastReason = "no attempt made"
        // Refused connections are retried past `maxRetries` until the breaker trips and its probe
        // decides (offline or back), so that they end `offline` rather than each failing on its own.
        let refusedAttempts = policy.maxRetries + policy.breakerThreshold + 1
        var attempt = 0
        while true {
            defer { attempt += 1 }
            try Task.checkCancellation()
            let outcome: Outcome
            switch try await send(url) {
            case .sent(let answer): outcome = answer
            case .refused(let admission):
                counters.update { $0.notSent += 1 }
                throw admission == .unavailable ? SourceFailure.unavailable(source: source) : SourceFailure.offline(source: source)
            }
            let failure: AttemptFailure
            switch outcome {
            case .success(let data):
                do {
                    let value = try decode(data)
                    await breaker.recordSuccess()
                    return value
                } catch {
                    counters.update { $0.malformedResponses += 1 }
                    lastReason = "malformed response from \(url.path)"
                    failure = .other
                }
            case .cancelled:
                throw CancellationError()
            case .failure(let reason, let retryable, let kind):
                lastReason = reason
                if !retryable {
                    await breaker.recordSuccess()  // the source answered; the request itself is wrong
                    throw SourceFailure.failed(source: source, reason: reason)
                }
                failure = kind
            }
            await breaker.recordFailure(failure)
            try Task.checkCancellation()
            if failure != .other, await breaker.state == .offline {
                counters.update { if $0.offline == nil { $0.offline = lastReason } }
                pacing.wakeAll()
                throw SourceFailure.offline(source: source)
            }
            if attempt >= policy.maxRetries {
                guard failure == .unreachable, attempt < refusedAttempts else { break }
                continue  // paced, and held by the open breaker until its probe decides
            }
            let delay = backoff(attempt: attempt)
            let allowed = counters.update { counters -> Bool in
                guard counters.backoffSeconds + delay <= policy.waitBudgetSeconds else { return false }
                counters.backoffSeconds += delay
                counters.retries += 1
                return true
            }
            guard allowed else {
                throw SourceFailure.failed(source: source, reason: "\(lastReason); wait budget of \(Int(policy.waitBudgetSeconds)) s used up")
            }
            try await clock.sleep(for: .milliseconds(Int64(delay * 1000)))
        }
        throw SourceFailure.failed(source: source, reason: "\(lastReason) after \(attempt) attempts")
    }

    /// Exponential backoff with full jitter in its upper half: base·2ⁿ·[0.5, 1], capped.
    func backoff(attempt: Int) -> Double {
        let ceiling = min(policy.backoffMaxSeconds, policy.backoffBaseSeconds * pow(2, Double(attempt)))
        return ceiling * Double.random(in: 0.5...1.0)
    }

    private enum Outcome {
        case success(Data)
        case failure(reason: String, retryable: Bool, kind: AttemptFailure)
        case cancelled
    }

    private enum Attempt {
        case sent(Outcome)
        /// Not sent: the breaker is open or the source is offline.
        case refused(CircuitBreaker.Admission)
    }

    /// One attempt. The breaker is asked before the pacing slot, so requests to an offline source
    /// do not use up slots (an offline run settles at once instead of at the request rate), and
    /// again just before sending, so requests queued behind the pacing see a trip that happened
    /// while they waited. While the breaker is open for a failing (not unreachable) source, a
    /// request takes its slot first, as it always has: refusals are spread over the cooldown, so
    /// rows after a short outage are still answered once the probe succeeds.
    private func send(_ url: URL) async throws -> Attempt {
        await gate.acquire()
        defer { Task { await gate.release() } }
        var admission = try await breaker.admit()
        let paced = admission == .unavailable
        if paced {
            try await pace()
            admission = try await breaker.admit()
        }
        guard case .send(var probe) = admission else { return .refused(admission) }
        if !paced {
            do {
                try await pace()
            } catch {
                if probe { await breaker.abandonProbe() }
                throw error
            }
            if !probe, await !breaker.stillAllowed() {
                admission = try await breaker.admit()
                guard case .send(let isProbe) = admission else { return .refused(admission) }
                probe = isProbe
            }
        }
        let outcome = await attempt(url)
        if probe, case .cancelled = outcome { await breaker.abandonProbe() }
        return .sent(outcome)
    }

    /// Waits for a pacing slot, or less: once the source is found offline, requests waiting for
    /// their slot go on at once (and the breaker refuses them), instead of each sleeping out its
    /// slot first (up to `concurrency` slots: 1.7 s at the defaults, for nothing).
    private func pace() async throws {
        let limiter = self.limiter
        let sleeper = Task { try await limiter.acquire() }
        let waiter = pacing.add { sleeper.cancel() }
        defer { pacing.remove(waiter) }
        if knownOffline { sleeper.cancel() }
        do {
            try await withTaskCancellationHandler { try await sleeper.value } onCancel: { sleeper.cancel() }
        } catch is CancellationError where !Task.isCancelled {
            return  // woken: the source went offline meanwhile
        }
    }

    /// Sends one request and classifies what came back.
    private func attempt(_ url: URL) async -> Outcome {
        counters.update { $0.requests += 1 }
        let get = CurlGet(url: url.absoluteString, headers: ["User-Agent: \(policy.userAgent)", "Accept: application/json"],
                          timeoutSeconds: policy.timeoutSeconds, limit: policy.maxResponseBytes)
        // libcurl blocks its thread; a cancelled task stops it at the next progress tick.
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(returning: get.run()) }
            }
        } onCancel: {
            get.cancel()
        }
        let host = url.host ?? ""
        switch result {
        case .success(let answer):
            switch answer.status {
            case 200: return .success(answer.body)
            case 429:
                counters.update { $0.rateLimited += 1 }
                return .failure(reason: "HTTP 429 from \(host)", retryable: true, kind: .other)
            case 500...599, 408:
                counters.update { $0.serverErrors += 1 }
                return .failure(reason: "HTTP \(answer.status) from \(host)", retryable: true, kind: .other)
            default:
                return .failure(reason: "HTTP \(answer.status) from \(url.path)", retryable: false, kind: .other)
            }
        case .failure(.tooLarge):
            counters.update { $0.oversizedResponses += 1 }
            return .failure(reason: "answer from \(url.path) longer than \(policy.maxResponseBytes) bytes (maxResponseBytes)",
                            retryable: true, kind: .other)
        case .failure(.cancelled):
            return .cancelled
        case .failure(.timedOut):
            counters.update { $0.timeouts += 1 }
            return .failure(reason: "timed out after \(policy.timeoutSeconds) s", retryable: true, kind: .other)
        case .failure(.nameResolution):
            counters.update { $0.connectionErrors += 1 }
            return .failure(reason: "name resolution failed for \(host)", retryable: true, kind: .nameResolution)
        case .failure(.refused):
            counters.update { $0.connectionErrors += 1 }
            let port = url.port.map { ":\($0)" } ?? ""
            return .failure(reason: "connection refused by \(host)\(port)", retryable: true, kind: .unreachable)
        case .failure(.other(let reason)):
            counters.update { $0.connectionErrors += 1 }
            return .failure(reason: "connection error: \(reason)", retryable: true, kind: .other)
        }
    }

    /// Nothing to release: each attempt's libcurl handle ends with it.
    public func shutdown() {}
}

/// Requests waiting for their pacing slot, to be woken when the source is found offline.
final class PacingWaiters: @unchecked Sendable {
    private let lock = NSLock()
    private var next = 0
    private var wakers: [Int: @Sendable () -> Void] = [:]

    func add(_ wake: @escaping @Sendable () -> Void) -> Int {
        lock.withLock {
            next += 1
            wakers[next] = wake
            return next
        }
    }

    func remove(_ id: Int) { lock.withLock { _ = wakers.removeValue(forKey: id) } }

    func wakeAll() {
        let all = lock.withLock { Array(wakers.values) }
        for wake in all { wake() }
    }
}

/// Lock-protected counters shared by concurrent requests.
final class Counters: @unchecked Sendable {
    private let lock = NSLock()
    private var storage = HTTPCounters()
    var value: HTTPCounters { lock.withLock { storage } }
    @discardableResult
    func update<T>(_ body: (inout HTTPCounters) -> T) -> T { lock.withLock { body(&storage) } }
}
