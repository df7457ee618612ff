import Foundation
import ShelflineActivity
import ShelflineCore

/// A sender's clock and backoff wait, injectable so tests never sleep.
public struct PushClock: Sendable {
    public var now: @Sendable () -> Date
    public var sleep: @Sendable (Double) async throws -> Void

    public init(
        now: @escaping @Sendable () -> Date = { Date() },
        sleep: @escaping @Sendable (Double) async throws -> Void = { try await Task.sleep(for: .seconds($0)) }
    ) {
        self.now = now
        self.sleep = sleep
    }
}

/// Sends every undelivered snapshot to each token that fits it, recording each delivery before the
/// token's next push: a crash never skips a snapshot and re-sends at most the push in flight.
public struct PushSender: Sendable {
    public var store: PushStore { PushStore(workspace: workspace) }
    public var workspace: Workspace
    public var settings: PushSettings
    public var clock: PushClock
    public var log: Logfmt

    static let goneReasons: Set<String> = ["BadDeviceToken", "DeviceTokenNotForTopic", "Unregistered", "ExpiredToken"]
    /// 403 reasons after which the provider token is renewed and the push retried once.
    static let renewableReasons: Set<String> = ["ExpiredProviderToken", "InvalidProviderToken"]
    static let backoffBase = 1.0
    static let backoffCap = 30.0

    public init(workspace: Workspace, settings: PushSettings, clock: PushClock = PushClock(), log: Logfmt = Logfmt()) {
        self.workspace = workspace
        self.settings = settings
        self.clock = clock
        self.log = log
    }

    /// A token and the snapshots due to it, in order.
    struct Plan: Sendable {
        var registration: Registration
        var entries: [FeedEntry]
        /// To record once every entry is dealt with (covers snapshots not for this token).
        var last: SnapshotID?
        var current: Cursor?

        func cursor(_ last: SnapshotID, deliveredAt: Int?) -> Cursor {
            Cursor(activity: registration.activity, last: last, deliveredAt: deliveredAt)
        }
    }

    /// Reads everything before anything is sent, so a read error sends nothing.
    func plan() throws -> (Registry, Outbox, [Plan]) {
        let registry = try store.readRegistry()
        let outbox = try store.readOutbox()
        var feeds: [PushActivity: SnapshotFeed] = [:]
        for activity in PushActivity.allCases where registry.tokens.contains(where: { $0.activity == activity }) {
            feeds[activity] = try SnapshotFeed(workspace: workspace, activity: activity)
        }
        let plans = registry.tokens.map { registration -> Plan in
            let cursor = outbox.cursors[registration.token.hex]
            let feed = feeds[registration.activity]!
            let (entries, last) = feed.pending(after: cursor)
            if registration.kind == .start, cursor?.activity != registration.activity, let start = feed.runningStart {
                // A push-to-start token registered while the activity runs gets its start.
                return Plan(registration: registration, entries: [start], last: last, current: cursor)
            }
            let due = entries.filter { $0.fits(registration.kind) }
            // An import shows one state: only the newest is due, never a backlog of progress.
            return Plan(
                registration: registration, entries: registration.activity == .import ? Array(due.suffix(1)) : due,
                last: last, current: cursor)
        }
        return (registry, outbox, plans)
    }

    /// `--dry-run`: the requests a send would make, tokens shortened.
    public func dryRun() throws -> (String, PushReport) {
        let (registry, _, plans) = try plan()
        var text = ""
        var report = PushReport()
        report.dryRun = true
        report.tokens = registry.tokens.count
        for plan in plans {
            for entry in plan.entries {
                let request = makeRequest(plan.registration.token, entry)
                text += "POST \(settings.host)/3/device/\(plan.registration.token.shortened)\n"
                text += "authorization: bearer <ES256 JWT kid=\(settings.keyId) iss=\(settings.teamId)>\n"
                for (name, value) in request.headers { text += "\(name): \(value)\n" }
                text += "\n" + String(decoding: request.body, as: UTF8.self) + "\n\n"
                report.pushes += 1
            }
        }
        return (text, report)
    }

    /// Sends, records, writes the report, then throws what decides the exit status (78, 75, 65).
    @discardableResult
    public func send(transport: any PushTransport, providerToken: ProviderToken) async throws -> PushReport {
        // The push lock only to read: a `register` never waits for APNs. The caller holds the send lock.
        let (registry, _, plans) = try await store.withLock { try plan() }
        let run = SendRun(
            deadline: clock.now().addingTimeInterval(settings.waitBudget), tokens: registry.tokens.count,
            pushes: plans.reduce(0) { $0 + $1.entries.count })
        let recorder = OutboxRecorder(store: store)
        let due = plans.filter { !$0.entries.isEmpty || $0.last != $0.current?.last }
        _ = await concurrently(due, limit: settings.concurrency) { plan in
            await deliver(plan, transport: transport, providerToken: providerToken, run: run, recorder: recorder)
        }
        let dropped = await run.droppedTokens
        var report = await run.report
        report.droppedTokens = dropped.sorted().map(\.shortened)
        // Compacts the journal (this send's, or a killed send's) into `outbox.json`.
        try await store.commit(removing: dropped)
        try store.write(report)
        if let error = await run.failure { throw error }
        if let error = await run.stop?.error { throw error }
        if report.deferred > 0 { throw PushError.deferred(count: report.deferred, reason: report.stoppedBecause ?? "APNs busy") }
        if report.rejected > 0 { throw PushError.rejected(count: report.rejected) }
        return report
    }

    enum Outcome { case delivered, dropped, rejected, deferred }

    /// A second `start` would open a second Live Activity, so a start or end is recorded before it
    /// is sent and taken back only when it certainly was not delivered.
    static func atMostOnce(_ entry: FeedEntry) -> Bool { entry.event != .update }

    /// The outcome of the last push tried; nil when none was due.
    @discardableResult
    func deliver(
        _ plan: Plan, transport: any PushTransport, providerToken: ProviderToken, run: SendRun,
        recorder: OutboxRecorder
    ) async -> Outcome? {
        let token = plan.registration.token
        var recorded = plan.current?.last
        var before = plan.current
        var deliveredAt = plan.current?.deliveredAt
        var last: Outcome?
        /// False when not on disk: nothing more is sent to this token (`unsent` deferred).
        func record(_ cursor: Cursor?, unsent: Int) async -> Bool {
            do {
                try await recorder.record(token, cursor)
                return true
            } catch {
                await run.fail(error)
                await run.count(.deferred, unsent)
                return false
            }
        }
        for (index, entry) in plan.entries.enumerated() {
            if await run.stop != nil {
                await run.count(.deferred, plan.entries.count - index)
                return .deferred
            }
            let once = Self.atMostOnce(entry)
            if once, await !record(plan.cursor(entry.id, deliveredAt: deliveredAt), unsent: plan.entries.count - index) {
                return .deferred
            }
            let outcome = await attempt(
                makeRequest(token, entry), plan: plan, entry: entry, transport: transport,
                providerToken: providerToken, run: run)
            last = outcome
            if once, outcome == .deferred {
                // Certainly not delivered: the next run sends it.
                try? await recorder.record(token, before)
            }
            await run.count(outcome, 1)
            switch outcome {
            case .delivered, .rejected:
                if outcome == .delivered { deliveredAt = Int(clock.now().timeIntervalSince1970) }
                before = plan.cursor(entry.id, deliveredAt: deliveredAt)
                // Not recorded: the next run re-sends this one push.
                guard await record(before, unsent: plan.entries.count - index - 1) else { return outcome }
                recorded = entry.id
            case .dropped:
                await run.drop(token)
                await run.count(.dropped, plan.entries.count - index - 1)
                return outcome
            case .deferred:
                await run.count(.deferred, plan.entries.count - index - 1)
                return outcome
            }
        }
        if let end = plan.last, end != recorded {
            _ = await record(plan.cursor(end, deliveredAt: deliveredAt), unsent: 0)
        }
        return last
    }

    func attempt(
        _ request: PushRequest, plan: Plan, entry: FeedEntry, transport: any PushTransport,
        providerToken: ProviderToken, run: SendRun
    ) async -> Outcome {
        var renewed = false
        var retries = 0
        var jwt: String
        do {
            jwt = try providerToken.jwt()
        } catch {
            await refused(status: 0, reason: "cannot sign: \(error)", run: run)
            return .deferred
        }
        while true {
            let answer: PushAnswer
            do {
                answer = try await transport.send(request, providerToken: jwt)
            } catch {
                await run.answer("network")
                if let error = error as? PushError {
                    // Not APNs, or not trusted: a configuration error.
                    logLine(plan, entry, status: "refused", reason: "\(error)", outcome: "deferred")
                    await run.halt(error.description, error: error)
                    return .deferred
                }
                // Written, never answered: it may have arrived, so a start or end counts as delivered.
                let unconfirmed = !(error is PushNotSent)
                logLine(
                    plan, entry, status: "network", reason: "\(error)",
                    outcome: unconfirmed && Self.atMostOnce(entry) ? "unconfirmed-not-resent" : "deferred")
                await run.halt("no answer from \(settings.host): \(error)")
                return unconfirmed && Self.atMostOnce(entry) ? .delivered : .deferred
            }
            await run.answer(String(answer.status))
            let reason = answer.reason
            func log(_ outcome: String, retryIn: Double? = nil) {
                logLine(
                    plan, entry, status: String(answer.status), reason: reason, apnsId: answer.apnsId, outcome: outcome,
                    retryIn: retryIn)
            }
            switch answer.status {
            case 200:
                log("delivered")
                return .delivered
            case 400 where reason.map(Self.goneReasons.contains) == true, 410:
                log("token-dropped")
                return .dropped
            case 403:
                // Only these two are cured by a new token (APNs' table); the others stop the run.
                if !renewed, reason.map(Self.renewableReasons.contains) ?? true {
                    renewed = true
                    log("retry-new-provider-token")
                    do {
                        jwt = try providerToken.jwt(replacing: jwt)
                    } catch {
                        await refused(status: 403, reason: "cannot sign: \(error)", run: run)
                        return .deferred
                    }
                    await run.renewed()
                    continue
                }
                log("deferred")
                await refused(status: 403, reason: reason ?? "Forbidden", run: run)
                return .deferred
            case 429, 500...599:
                let delay = min(Self.backoffCap, Self.backoffBase * pow(2, Double(retries)))
                if await run.mayWait(delay, now: clock.now()) {
                    retries += 1
                    log("retry", retryIn: delay)
                    await run.retried()
                    do {
                        try await clock.sleep(delay)
                    } catch {
                        return .deferred
                    }
                    continue
                }
                log("deferred")
                await run.busy(
                    "APNs answered \(answer.status)\(reason.map { " \($0)" } ?? "") beyond the wait budget of \(Int(settings.waitBudget)) s"
                )
                return .deferred
            default:
                // 413 and other 4xx: retrying cannot help.
                log("rejected-bug")
                return .rejected
            }
        }
    }

    /// The provider token refused even after a renewal, or not signed: a configuration error (78).
    func refused(status: Int, reason: String, run: SendRun) async {
        await run.halt(
            "provider token refused (\(status) \(reason))",
            error: .providerTokenRejected(keyId: settings.keyId, status: status, reason: reason))
    }

    func makeRequest(_ token: DeviceToken, _ entry: FeedEntry) -> PushRequest {
        PushRequest(
            token: token, topic: settings.topic, priority: entry.priority, expiration: entry.expiration,
            apnsId: Self.apnsId(token: token, snapshot: entry.id), body: entry.body)
    }

    /// A version-4-layout UUID from token and snapshot: a re-sent push keeps its id.
    static func apnsId(token: DeviceToken, snapshot: SnapshotID) -> String {
        var bytes = Array(SHA256.hash(data: Data((token.hex + "/" + snapshot.digest + "/\(snapshot.timestamp)").utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0f) | 0x40
        bytes[8] = (bytes[8] & 0x3f) | 0x80
        return UUID(uuid: bytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }).uuidString
    }

    /// One logfmt line per answer; with `--quiet`, only those not delivered.
    func logLine(
        _ plan: Plan, _ entry: FeedEntry, status: String, reason: String?, apnsId: String? = nil, outcome: String,
        retryIn: Double? = nil
    ) {
        let line = Logfmt.format([
            "push": plan.registration.activity.rawValue, "token": plan.registration.token.shortened,
            "event": entry.event.rawValue,
            "status": status, "reason": reason ?? "-", "apns_id": apnsId ?? "-", "priority": entry.priority,
            "outcome": outcome, "retry_in": retryIn.map { String(format: "%.1f", $0) } ?? "-",
        ])
        if outcome != "delivered" || !log.quiet { log.error(line) }
    }
}

/// `work` on each item, at most `limit` at a time; results in the order they finish.
func concurrently<T: Sendable, R: Sendable>(
    _ items: [T], limit: Int, _ work: @escaping @Sendable (T) async -> R
) async -> [R] {
    await withTaskGroup(of: R.self) { group in
        var results: [R] = []
        for (index, item) in items.enumerated() {
            if index >= limit, let result = await group.next() { results.append(result) }
            group.addTask { await work(item) }
        }
        for await result in group { results.append(result) }
        return results
    }
}

/// Shared state of one send: counts, the wait deadline, and why it stopped.
actor SendRun {
    private(set) var report = PushReport()
    /// Why the run stopped (the report's `stoppedBecause`), with the configuration error (78) it
    /// is; a network stop has none (deferred, 75).
    private(set) var stop: (reason: String, error: PushError?)?
    private(set) var failure: (any Error)?
    private(set) var droppedTokens: Set<DeviceToken> = []
    let deadline: Date

    init(deadline: Date, tokens: Int = 0, pushes: Int = 0) {
        self.deadline = deadline
        report.tokens = tokens
        report.pushes = pushes
    }

    func count(_ outcome: PushSender.Outcome, _ n: Int) {
        switch outcome {
        case .delivered: report.delivered += n
        case .dropped: report.dropped += n
        case .rejected: report.rejected += n
        case .deferred: report.deferred += n
        }
    }

    func answer(_ status: String) { report.answers[status, default: 0] += 1 }
    func retried() { report.retries += 1 }
    func renewed() { report.providerTokenRenewals += 1 }
    func drop(_ token: DeviceToken) { droppedTokens.insert(token) }

    func mayWait(_ delay: Double, now: Date) -> Bool {
        stop == nil && now.addingTimeInterval(delay) <= deadline
    }

    func busy(_ reason: String) {
        if report.stoppedBecause == nil { report.stoppedBecause = reason }
    }

    /// Stops every chain before its next push (in-flight ones finish).
    func halt(_ reason: String, error: PushError? = nil) {
        guard stop == nil else { return }
        stop = (reason, error)
        report.stoppedBecause = reason
    }

    func fail(_ error: any Error) {
        if failure == nil { failure = error }
        if stop == nil { stop = ("outbox not written: \(error)", nil) }
        report.stoppedBecause = "outbox not written: \(error)"
    }
}

/// Group commit: deliveries completing together share one append and `fsync`; `record` returns once on disk.
actor OutboxRecorder {
    private let store: PushStore
    private var pending: [(token: String, cursor: Cursor?)] = []
    private var waiters: [CheckedContinuation<Void, any Error>] = []
    private var flushing = false

    init(store: PushStore) {
        self.store = store
    }

    /// `cursor` nil: taken back.
    func record(_ token: DeviceToken, _ cursor: Cursor?) async throws {
        pending.append((token.hex, cursor))
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            waiters.append(continuation)
            if !flushing {
                flushing = true
                Task { await self.flush() }
            }
        }
    }

    private func flush() async {
        while !waiters.isEmpty {
            let batch = waiters, entries = pending
            waiters = []
            pending = []
            let result: Result<Void, any Error>
            do {
                try await store.withLock { [path = store.journalPath] in try OutboxJournal.append(entries, path: path) }
                result = .success(())
            } catch {
                result = .failure(error)
            }
            for waiter in batch { waiter.resume(with: result) }
            await Task.yield()
        }
        flushing = false
    }
}
