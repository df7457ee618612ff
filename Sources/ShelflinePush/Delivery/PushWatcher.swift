import Foundation
import ShelflineActivity
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// The push worker beside a running import (`watch`): one APNs connection, a pass every
/// `pollInterval`, only the newest state per token, throttled as docs/push.md says. A failure keeps
/// the cursor and retries after a backoff with the newest state, so the import never waits and a
/// stall never replays a backlog; the outbox records deliveries, so the final `send` sends only the rest.
public struct PushWatcher: Sendable {
    public var sender: PushSender
    /// Seconds between passes.
    public var pollInterval: Double
    static let backoffCap = 5.0

    public init(sender: PushSender, pollInterval: Double = 0.25) {
        self.sender = sender
        self.pollInterval = pollInterval
    }

    /// What the watcher remembers between passes (one import).
    public struct State: Sendable {
        /// For the throttle.
        var lastPushed: [DeviceToken: Date] = [:]
        /// The state files as the last pass that left nothing waiting saw them: while unchanged, a
        /// pass reads nothing (a stat per file instead of decoding the history).
        var settled: [FileStamp]?
        /// Priority-10 pushes per token.
        var urgent: [DeviceToken: Int] = [:]
        var retryAt: Date?
        var failures = 0
        public var delivered = 0
        public var failed = 0
        /// Provider token refused even after a renewal, or the host not APNs or not trusted.
        public var stoppedBecause: PushError?

        public init() {}
    }

    /// Passes until `stop()`, then a last one that ignores the throttle, so the final state goes out at once.
    public func run(transport: any PushTransport, providerToken: ProviderToken, stop: @Sendable () -> Bool) async -> State {
        var state = State()
        while !stop() && state.stoppedBecause == nil {
            await pass(transport: transport, providerToken: providerToken, state: &state, final: false)
            try? await sender.clock.sleep(pollInterval)
        }
        if state.stoppedBecause == nil {
            state.retryAt = nil
            await pass(transport: transport, providerToken: providerToken, state: &state, final: true)
        }
        return state
    }

    /// The newest due snapshot per token, sent together. A read error is logged; the next pass retries.
    public func pass(transport: any PushTransport, providerToken: ProviderToken, state: inout State, final: Bool) async {
        let now = sender.clock.now()
        if let retryAt = state.retryAt, now < retryAt { return }
        let stamps = watchedFiles.map(FileStamp.init(path:))
        if !final, stamps == state.settled { return }
        state.settled = nil
        do {
            state = try await sender.store.withSendLock { [state] in
                try await locked(
                    transport: transport, providerToken: providerToken, state: state, final: final, now: now,
                    stamps: stamps)
            }
        } catch {
            state.failed += 1
            sender.log.error(Logfmt.format(["push": "watch", "event": "error", "error": "\(error)"]))
        }
    }

    var watchedFiles: [String] {
        let store = sender.store
        return [store.registryPath, store.outboxPath, store.journalPath]
            + PushActivity.allCases.map { ActivityStore(workspace: sender.workspace, name: $0.rawValue).historyPath }
    }

    private func locked(
        transport: any PushTransport, providerToken: ProviderToken, state: State, final: Bool,
        now: Date, stamps: [FileStamp]
    ) async throws -> State {
        var state = state
        // The push lock only to read: a `register` never waits for APNs.
        let (_, _, plans) = try await sender.store.withLock { try sender.plan() }
        var changes: [(token: String, cursor: Cursor?)] = []
        var choices: [(plan: PushSender.Plan, entry: FeedEntry, priority: Int)] = []
        var waiting = false
        for plan in plans {
            guard let entry = plan.entries.last else {
                // Only snapshots of the other kind: the cursor moves on.
                if let last = plan.last, last != plan.current?.last {
                    changes.append((plan.registration.token.hex, plan.cursor(last, deliveredAt: plan.current?.deliveredAt)))
                }
                continue
            }
            let token = plan.registration.token
            var priority = entry.priority
            if plan.registration.activity == .import {
                if priority == 10, state.urgent[token, default: 0] >= sender.settings.maxUrgentPushesPerImport { priority = 5 }
                if priority == 5, !final {
                    let last =
                        state.lastPushed[token]
                        ?? plan.current?.deliveredAt.map { Date(timeIntervalSince1970: TimeInterval($0)) }
                    if let last, now.timeIntervalSince(last) < sender.settings.minimumUpdateInterval {
                        waiting = true
                        continue
                    }
                }
            }
            choices.append((plan, entry, priority))
        }
        let run = SendRun(deadline: now)
        // A start or end is recorded before it is sent (`PushSender.atMostOnce`).
        try await sender.store.appendJournal(
            choices.filter { PushSender.atMostOnce($0.entry) }.compactMap { choice in
                choice.plan.last.map {
                    (choice.plan.registration.token.hex, choice.plan.cursor($0, deliveredAt: choice.plan.current?.deliveredAt))
                }
            })
        let results = await concurrently(choices, limit: sender.settings.concurrency) { choice in
            var request = sender.makeRequest(choice.plan.registration.token, choice.entry)
            request.priority = choice.priority
            let outcome = await sender.attempt(
                request, plan: choice.plan, entry: choice.entry, transport: transport, providerToken: providerToken, run: run)
            return (choice, outcome)
        }
        var dropped: Set<DeviceToken> = []
        var anyFailed = false
        let pushedAt = sender.clock.now()
        for (choice, outcome) in results {
            let token = choice.plan.registration.token
            switch outcome {
            case .delivered, .rejected:
                // The chosen snapshot stands for every one before it.
                let deliveredAt = outcome == .delivered ? Int(pushedAt.timeIntervalSince1970) : choice.plan.current?.deliveredAt
                if let last = choice.plan.last { changes.append((token.hex, choice.plan.cursor(last, deliveredAt: deliveredAt))) }
                if outcome == .delivered {
                    state.delivered += 1
                    state.lastPushed[token] = pushedAt
                    if choice.priority == 10 { state.urgent[token, default: 0] += 1 }
                }
            case .dropped:
                dropped.insert(token)
            case .deferred:
                // Certainly not delivered: a start or end recorded before sending is taken back.
                if PushSender.atMostOnce(choice.entry) { changes.append((token.hex, choice.plan.current)) }
                anyFailed = true
                state.failed += 1
            }
        }
        if let error = await run.stop?.error(keyId: sender.settings.keyId) {
            state.stoppedBecause = error
            sender.log.error(Logfmt.format(["push": "watch", "event": "stopped", "reason": error.description]))
        }
        if anyFailed {
            state.failures += 1
            let delay = min(Self.backoffCap, PushSender.backoffBase * pow(2, Double(state.failures - 1)))
            state.retryAt = sender.clock.now().addingTimeInterval(delay)
        } else if !results.isEmpty {
            state.failures = 0
            state.retryAt = nil
        }
        // Until a file changes the next passes have nothing to do (stamped before this pass's own
        // writes, so those count as a change).
        if !anyFailed && !waiting && dropped.isEmpty { state.settled = stamps }
        try await sender.store.commit(changes, removing: dropped)
        return state
    }
}

/// A file's identity and version as `stat` gives it (absent: all zero). Files are replaced by
/// rename, so a new inode or mtime means new content.
struct FileStamp: Equatable, Sendable {
    var inode: UInt64 = 0
    var size: Int64 = 0
    var seconds: Int = 0
    var nanoseconds: Int = 0

    init(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        seconds = info.st_mtim.tv_sec
        nanoseconds = info.st_mtim.tv_nsec
    }
}
