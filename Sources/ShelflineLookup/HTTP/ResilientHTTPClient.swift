import Foundation
import ShelflineCore
import ShelflineHTTP

/// What happened on the wire, for the report.
public struct HTTPCounters: Codable, Sendable, Equatable {
    /// Each retry counts.
    public var requests = 0
    public var retries = 0
    public var rateLimited = 0
    public var serverErrors = 0
    public var timeouts = 0
    public var connectionErrors = 0
    public var malformedResponses = 0
    /// Cut off at `maxResponseBytes` (the attempt failed, like a malformed one).
    public var oversizedResponses = 0
    public var breakerTrips = 0
    public var backoffSeconds = 0.0
    /// Refused by the breaker or an out-of-reach source; stays small, as the engine stops asking
    /// such a source (`standingFailure`).
    public var notSent = 0
    /// Why the source was found out of reach; nil when it always was reachable.
    public var offline: String?
    /// The quota answer that ended the source for this run (`HTTP 403 dailyLimitExceeded`).
    public var quotaSpent: String?
}

/// Limits and retry policy of one HTTP source: the limits Open Library's section holds (read as
/// `policy.maxRetries`); a source that does not set one has `OpenLibraryParameters`' default.
@dynamicMemberLookup
public struct HTTPPolicy: Sendable {
    public var limits: OpenLibraryParameters
    /// The source is not asked again this run.
    public var quotaStatuses: Set<Int> = []
    /// Besides User-Agent and Accept (ISBNdb's `Authorization`); never in a message.
    public var headers: [(String, String)] = []

    init(_ limits: OpenLibraryParameters) { self.limits = limits }

    public subscript<Value>(dynamicMember limit: WritableKeyPath<OpenLibraryParameters, Value>) -> Value {
        get { limits[keyPath: limit] }
        set { limits[keyPath: limit] = newValue }
    }
}

/// A client that is polite and never hangs: bounded concurrency, paced requests, timeouts, a size
/// limit, backoff with jitter, bounded retries, a per-run wait budget and a circuit breaker.
public final class ResilientHTTPClient: Sendable {
    public let source: String
    let policy: HTTPPolicy
    let clock: PacingClock
    private let limiter: RateLimiter
    private let gate: AsyncSemaphore
    let breaker: CircuitBreaker
    private let counters = LockedValue(HTTPCounters())
    private let pacing = PacingWaiters()
    /// The last URL refused: what the breaker's probe asks again.
    private let probeURL = LockedValue<URL?>(nil)
    private let probes = ProbeTask()
    /// Set by the first quota answer: the source is done for this run.
    private let quotaSpent = LockedValue<String?>(nil)

    /// `clock` drives pacing, backoff and the breaker; the per-request timeout is real time.
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
        value.breakerTrips = breaker.trips
        return value
    }

    /// Out of reach for the rest of the run (its host name did not resolve).
    public var isOffline: Bool { breaker.state == .offline }

    /// The failure every request meets now unsent, or nil; does not suspend. A due probe starts on a
    /// task of its own, so no caller waits for it.
    public func standingFailure() -> SourceFailure? {
        if quotaSpent.value != nil { return .quotaSpent(source: source) }
        return breaker.standing().flatMap(refusal)
    }

    /// GETs `url`, or POSTs `form` (`application/x-www-form-urlencoded`), and hands a 200 body to
    /// `decode`; a decode error counts as a failed attempt. `absent`: statuses that mean "nothing
    /// here" for this request (ISBNdb's 404), handed to `decode` as an empty body.
    public func fetch<T: Sendable>(
        _ url: URL, form: String? = nil, absent: Set<Int> = [], decode: @Sendable (Data) throws -> T
    ) async throws -> T {
        let body = form.map { Data($0.utf8) }
        var lastReason = "no attempt made"
        var retries = 0
        var attempts = 0
        // A refused connection is tried again at once in its unused slot and gate place (queued again,
        // retries came a slot apart) until the breaker opens; bounded as answers may keep it closed.
        var unsent = 0
        let unsentLimit = policy.maxRetries + policy.breakerThreshold + 1
        var slotUnused = false
        var holdsGate = false
        defer { if holdsGate { releaseGate() } }
        // The last `Retry-After`: the backoff is at least that long.
        var serverAsked: Double?
        while true {
            try Task.checkCancellation()
            if !holdsGate {
                await gate.acquire()
                holdsGate = true
            }
            let outcome: Outcome
            do {
                outcome = try await send(url, body: body, absent: absent, paced: !slotUnused)
            } catch let refused as SourceFailure {
                counters.update { $0.notSent += 1 }
                throw refused
            }
            attempts += 1
            slotUnused = false
            let failure: AttemptFailure
            switch outcome {
            case .success(let data):
                do {
                    let value = try decode(data)
                    breaker.recordSuccess()
                    return value
                } catch {
                    counters.update { $0.malformedResponses += 1 }
                    lastReason = "malformed response from \(url.path)"
                    failure = .other
                }
            case .cancelled:
                throw CancellationError()
            case .quotaSpent(let reason):
                breaker.recordSuccess()  // the source answered; it will not answer more today
                quotaSpent.set(reason)
                counters.update { if $0.quotaSpent == nil { $0.quotaSpent = reason } }
                pacing.wakeAll()
                throw SourceFailure.quotaSpent(source: source)
            case .failure(let reason, let retryable, let kind, let retryAfter):
                lastReason = reason
                serverAsked = retryAfter
                if !retryable {
                    breaker.recordSuccess()  // the source answered; the request itself is wrong
                    throw SourceFailure.failed(source: source, reason: reason)
                }
                failure = kind
            }
            breaker.recordFailure(failure)
            try Task.checkCancellation()
            if failure != .other {
                probeURL.set(url)
                if let standing = standingFailure() {
                    counters.update { if $0.offline == nil { $0.offline = lastReason } }
                    pacing.wakeAll()
                    throw standing
                }
                unsent += 1
                guard unsent < unsentLimit else { break }
                slotUnused = true
                continue
            }
            releaseGate()  // not held while backing off
            holdsGate = false
            guard retries < policy.maxRetries else { break }
            let delay = max(backoff(attempt: retries), serverAsked ?? 0)
            let allowed = counters.update { counters -> Bool in
                guard counters.backoffSeconds + delay <= policy.waitBudgetSeconds else { return false }
                counters.backoffSeconds += delay
                counters.retries += 1
                return true
            }
            guard allowed else {
                throw SourceFailure.failed(
                    source: source, reason: "\(lastReason); wait budget of \(Int(policy.waitBudgetSeconds)) s used up")
            }
            retries += 1
            try await clock.sleep(for: .milliseconds(Int64(delay * 1000)))
        }
        throw SourceFailure.failed(source: source, reason: "\(lastReason) after \(attempts) attempts")
    }

    /// Exponential backoff with full jitter in its upper half: base·2ⁿ·[0.5, 1], capped.
    func backoff(attempt: Int) -> Double {
        let ceiling = min(policy.backoffMaxSeconds, policy.backoffBaseSeconds * pow(2, Double(attempt)))
        return ceiling * Double.random(in: 0.5...1.0)
    }

    private enum Outcome {
        case success(Data)
        case failure(reason: String, retryable: Bool, kind: AttemptFailure, retryAfter: Double? = nil)
        case quotaSpent(reason: String)
        case cancelled
    }

    /// Nil when admitted; starts the unreachable source's probe when it is due.
    private func refusal(_ admission: CircuitBreaker.Admission) -> SourceFailure? {
        switch admission {
        case .send: return nil
        case .unavailable: return .unavailable(source: source)
        case .offline: return .offline(source: source)
        case .unreachable(let probeDue):
            if probeDue { startProbe() }
            return .offline(source: source)
        }
    }

    /// Throws the `SourceFailure` that refuses it unsent. The breaker is asked before the slot (an
    /// unreachable source uses none) and before sending. Open for a reachable source, a request
    /// takes its slot first: refusals spread over the cooldown, so rows after a short outage are answered.
    private func send(_ url: URL, body: Data?, absent: Set<Int>, paced: Bool) async throws -> Outcome {
        if quotaSpent.value != nil { throw SourceFailure.quotaSpent(source: source) }
        var admission = breaker.admit()
        if admission == .unavailable, paced {
            _ = try await pace()
            admission = breaker.admit()
        }
        if let failure = refusal(admission) { throw failure }
        guard case .send(var probe) = admission else { throw SourceFailure.unavailable(source: source) }
        while paced {
            let slot: Bool
            do {
                slot = try await pace()
            } catch {
                if probe { breaker.abandonProbe() }
                throw error
            }
            if !probe, breaker.state != .closed {
                admission = breaker.admit()
                if let failure = refusal(admission) { throw failure }
                guard case .send(let isProbe) = admission else { throw SourceFailure.unavailable(source: source) }
                probe = isProbe
            }
            if quotaSpent.value != nil {
                if probe { breaker.abandonProbe() }
                throw SourceFailure.quotaSpent(source: source)
            }
            if slot { break }
            // Woken without a slot, yet a probe re-admitted it: wait for a slot of its own.
        }
        let outcome = await attempt(url, body: body, absent: absent)
        if probe, case .cancelled = outcome { breaker.abandonProbe() }
        return outcome
    }

    /// False when woken early: once the source is found unreachable, waiting requests go on at once
    /// instead of each sleeping out its slot (1.7 s at the defaults, for nothing).
    private func pace() async throws -> Bool {
        let limiter = self.limiter
        let sleeper = Task { try await limiter.acquire() }
        let waiter = pacing.add { sleeper.cancel() }
        defer { pacing.remove(waiter) }
        if refusesUnsent { sleeper.cancel() }
        do {
            try await withTaskCancellationHandler {
                try await sleeper.value
            } onCancel: {
                sleeper.cancel()
            }
            return true
        } catch is CancellationError where !Task.isCancelled {
            return false  // woken: the source was found unreachable meanwhile
        }
    }

    private var refusesUnsent: Bool {
        switch breaker.state {
        case .offline, .open(_, unreachable: true), .halfOpen(unreachable: true): true
        default: false
        }
    }

    /// Sends the last refused URL in a pacing slot: any HTTP answer means the server is reachable
    /// again (429/5xx leave the breaker open for the cooldown); a refusal reopens it for twice as long.
    private func startProbe() {
        guard let url = probeURL.value else {
            breaker.abandonProbe()
            return
        }
        probes.start { [self] in
            await gate.acquire()
            defer { releaseGate() }
            do {
                try await limiter.acquire()
            } catch {
                breaker.abandonProbe()
                return
            }
            switch await attempt(url) {
            case .success, .quotaSpent: breaker.recordSuccess()
            case .failure(_, let retryable, let kind, _): retryable ? breaker.recordFailure(kind) : breaker.recordSuccess()
            case .cancelled: breaker.abandonProbe()
            }
        }
    }

    /// From code that cannot wait for the gate's actor.
    private func releaseGate() {
        let gate = self.gate
        Task { await gate.release() }
    }

    /// Waits for the probe started last, if any (tests: to see its outcome without sleeping).
    func probeFinished() async { await probes.current?.value }

    private func attempt(_ url: URL, body: Data? = nil, absent: Set<Int> = []) async -> Outcome {
        counters.update { $0.requests += 1 }
        let form = body == nil ? [] : [("Content-Type", "application/x-www-form-urlencoded")]
        let get = HTTPGet(
            url: url,
            headers: [("User-Agent", policy.userAgent), ("Accept", "application/json")] + form + policy.headers,
            timeoutSeconds: policy.timeoutSeconds, limit: policy.maxResponseBytes, redirects: .http(maximum: 5), body: body)
        let result = await get.run()
        let host = url.host ?? ""
        switch result {
        case .success(let answer):
            switch answer.status {
            case 200: return .success(answer.body)
            case let status where absent.contains(status):
                return .success(Data())
            case let status where policy.quotaStatuses.contains(status):
                let word = Self.errorReason(answer.body).map { " \($0)" } ?? ""
                return .quotaSpent(reason: "HTTP \(status)\(word) from \(host)")
            case let status where status == 429 || status == 408 || (500...599).contains(status):
                counters.update { if status == 429 { $0.rateLimited += 1 } else { $0.serverErrors += 1 } }
                return .failure(
                    reason: "HTTP \(answer.status) from \(host)", retryable: true, kind: .other,
                    retryAfter: Self.seconds(retryAfter: answer.retryAfter))
            default:
                return .failure(reason: "HTTP \(answer.status) from \(url.path)", retryable: false, kind: .other)
            }
        case .failure(.tooLarge):
            counters.update { $0.oversizedResponses += 1 }
            return .failure(
                reason: "answer from \(url.path) longer than \(policy.maxResponseBytes) bytes (maxResponseBytes)",
                retryable: true, kind: .other)
        case .failure(.cancelled):
            return .cancelled
        case .failure(.timedOut):
            counters.update { $0.timeouts += 1 }
            return .failure(reason: "timed out after \(policy.timeoutSeconds) s", retryable: true, kind: .other)
        case .failure(.nameResolution):
            counters.update { $0.connectionErrors += 1 }
            return .failure(reason: "name resolution failed for \(host)", retryable: true, kind: .nameResolution)
        case .failure(.unreachable(let reason)):
            counters.update { $0.connectionErrors += 1 }
            let port = url.port.map { ":\($0)" } ?? ""
            return .failure(reason: "\(reason) by \(host)\(port)", retryable: true, kind: .unreachable)
        case .failure(.redirectRefused(let target)):
            return .failure(
                reason: "\(url.path) redirected to \(target?.absoluteString ?? "no usable Location") (not followed)",
                retryable: false, kind: .other)
        case .failure(.tooManyRedirects):
            return .failure(reason: "\(url.path) redirected more than 5 times", retryable: false, kind: .other)
        case .failure(.other(let reason)):
            counters.update { $0.connectionErrors += 1 }
            return .failure(reason: "connection error: \(reason)", retryable: true, kind: .other)
        }
    }

    /// Nil for a date (the backoff applies) or nonsense.
    static func seconds(retryAfter: String?) -> Double? {
        guard let text = retryAfter?.trimmingCharacters(in: .whitespaces), let seconds = Int(text), seconds >= 0 else {
            return nil
        }
        return Double(seconds)
    }

    /// The first `error.errors[].reason` of a Google-style error (`dailyLimitExceeded`), letters only
    /// and short: never anything the answer echoes back.
    static func errorReason(_ body: Data) -> String? {
        struct Answer: Decodable {
            struct Failure: Decodable { var errors: [Item]?; var status: String? }
            struct Item: Decodable { var reason: String? }
            var error: Failure?
        }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: body),
            let word = answer.error?.errors?.first?.reason ?? answer.error?.status,
            !word.isEmpty, word.count <= 40, word.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "_") })
        else { return nil }
        return word
    }

    /// Cancels a probe still out.
    public func shutdown() { probes.cancel() }
}

/// Requests waiting for their pacing slot, woken when the source is found offline.
final class PacingWaiters: Sendable {
    private let wakers = LockedValue<(lastID: Int, all: [Int: @Sendable () -> Void])>((0, [:]))

    func add(_ wake: @escaping @Sendable () -> Void) -> Int {
        wakers.update { wakers in
            wakers.lastID += 1
            wakers.all[wakers.lastID] = wake
            return wakers.lastID
        }
    }

    func remove(_ id: Int) { wakers.update { _ = $0.all.removeValue(forKey: id) } }

    func wakeAll() { for wake in wakers.value.all.values { wake() } }
}

/// A value read and replaced under a lock.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func set(_ value: Value) { lock.withLock { stored = value } }
    @discardableResult
    func update<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&stored) } }
}

/// The breaker's probe task (at most one is out), cancelled at shutdown.
final class ProbeTask: Sendable {
    /// The task, and whether `cancel()` came (a task started after it is cancelled at once).
    private let state = LockedValue<(task: Task<Void, Never>?, stopped: Bool)>((nil, false))

    var current: Task<Void, Never>? { state.value.task }

    func start(_ body: @escaping @Sendable () async -> Void) {
        state.update { state in
            state.task = Task { await body() }
            if state.stopped { state.task?.cancel() }
        }
    }

    func cancel() {
        state.update { state in
            state.stopped = true
            state.task?.cancel()
        }
    }
}
