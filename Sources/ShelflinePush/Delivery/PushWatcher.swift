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
        var settled: [[Int]]?
        /// Priority-10 pushes per token.
        var urgent: [DeviceToken: Int] = [:]
        var retryAt: Date?
        var failures = 0
        public var delivered = 0
        public var failed = 0
        /// Provider token refused even after a renewal, or the host not APNs or not trusted.
        public var stoppedBecause: PushError?
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
        let stamps = watchedFiles.map(fileStamp)
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
        now: Date, stamps: [[Int]]
    ) async throws -> State {
        var state = state
        // The push lock only to read: a `register` never waits for APNs.
        let (_, _, plans) = try await sender.store.withLock { try sender.plan() }
        var due: [PushSender.Plan] = []
        var waiting = false
        for var plan in plans {
            // The newest due snapshot only; none (snapshots of the other kind only): the cursor moves on.
            if var entry = plan.entries.last {
                let token = plan.registration.token
                if plan.registration.activity == .import {
                    if entry.priority == 10, state.urgent[token, default: 0] >= sender.settings.maxUrgentPushesPerImport {
                        entry.priority = 5
                    }
                    if entry.priority == 5, !final {
                        let last =
                            state.lastPushed[token]
                            ?? plan.current?.deliveredAt.map { Date(timeIntervalSince1970: TimeInterval($0)) }
                        if let last, now.timeIntervalSince(last) < sender.settings.minimumUpdateInterval {
                            waiting = true
                            continue
                        }
                    }
                }
                plan.entries = [entry]
            }
            if !plan.entries.isEmpty || plan.last != plan.current?.last { due.append(plan) }
        }
        let run = SendRun(deadline: now)
        let recorder = OutboxRecorder(store: sender.store)
        let results = await concurrently(due, limit: sender.settings.concurrency) { plan in
            (plan, await sender.deliver(plan, transport: transport, providerToken: providerToken, run: run, recorder: recorder))
        }
        if let error = await run.failure { throw error }
        var anyFailed = false
        let pushedAt = sender.clock.now()
        for case let (plan, outcome?) in results {
            let token = plan.registration.token
            if outcome == .delivered {
                state.delivered += 1
                state.lastPushed[token] = pushedAt
                if plan.entries[0].priority == 10 { state.urgent[token, default: 0] += 1 }
            } else if outcome == .deferred {
                anyFailed = true
                state.failed += 1
            }
        }
        if let error = await run.stop?.error {
            state.stoppedBecause = error
            sender.log.error(Logfmt.format(["push": "watch", "event": "stopped", "reason": error.description]))
        }
        if anyFailed {
            state.failures += 1
            let delay = min(Self.backoffCap, PushSender.backoffBase * pow(2, Double(state.failures - 1)))
            state.retryAt = sender.clock.now().addingTimeInterval(delay)
        } else if results.contains(where: { $0.1 != nil }) {
            state.failures = 0
            state.retryAt = nil
        }
        let dropped = await run.droppedTokens
        // Until a file changes the next passes have nothing to do (stamped before this pass's own
        // writes, so those count as a change).
        if !anyFailed && !waiting && dropped.isEmpty { state.settled = stamps }
        // Compacts the journal this pass's deliveries were recorded in.
        try await sender.store.commit(removing: dropped)
        return state
    }
}

/// A file's identity and version as `stat` gives it: inode, size, mtime (absent: empty). Files are
/// replaced by rename, so a new inode or mtime means new content.
func fileStamp(_ path: String) -> [Int] {
    var info = stat()
    guard stat(path, &info) == 0 else { return [] }
    return [Int(truncatingIfNeeded: info.st_ino), Int(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
}
