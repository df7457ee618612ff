import APNsTestServer
import Foundation
import ShelflineActivity
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflinePush

/// The push worker's passes on a manual clock against the loopback APNs: the newest state per
/// token, progress throttled at priority 5, what a person must see at once at 10, no backlog
/// after a stall.
@Suite struct PushWatcherTests {
    static let t0 = 1_760_000_000

    /// A watcher on `clock` (one process's connection and provider token).
    func watcher(
        _ fixture: PushFixture, _ server: APNsTestServer, clock: ManualClock, lines: LineLog = LineLog(),
        change: (inout PushSettings) -> Void = { _ in }
    ) throws -> (PushWatcher, APNsTransport, ProviderToken) {
        var (sender, transport, providerToken) = try fixture.sender(server, clock: clock, lines: lines)
        sender.settings.minimumUpdateInterval = 5
        change(&sender.settings)
        return (PushWatcher(sender: sender), transport, providerToken)
    }

    /// (event, timestamp, priority) of every push `token` received, in order.
    func pushes(_ server: APNsTestServer, to token: String) -> [String] {
        server.received.filter { $0.token == token }.map {
            "\($0.event ?? "?")@\(($0.timestamp ?? 0) - Self.t0)/\($0.headers["apns-priority"] ?? "?")"
        }
    }

    @Test(.bug(id: 26)) func progressIsCoalescedAndThrottledWhileStartAndEndGoAtOnce() async throws {
        let fixture = PushFixture("watch-coalesce")
        let update = PushFixture.token(1), start = PushFixture.token(2)
        try await fixture.register(update, .import, kind: .update)
        try await fixture.register(start, .import, kind: .start)
        let server = try await fixture.server()
        defer { Task { try? await server.shutdown() } }
        let clock = ManualClock(Date(timeIntervalSince1970: TimeInterval(Self.t0)))
        let (watcher, transport, providerToken) = try watcher(fixture, server, clock: clock)
        var state = PushWatcher.State()
        func pass(at offset: Int) async {
            clock.advance(TimeInterval(Self.t0 + offset) - clock.now.timeIntervalSince1970)
            await watcher.pass(transport: transport, providerToken: providerToken, state: &state, final: false)
        }

        try fixture.emitImport(.start, processed: 0, at: Self.t0)
        await pass(at: 0)
        for n in 1...3 { try fixture.emitImport(.update, processed: n, at: Self.t0 + n) }
        await pass(at: 3)
        try fixture.emitImport(.update, processed: 4, at: Self.t0 + 4)
        await pass(at: 4)
        try fixture.emitImport(.update, processed: 5, at: Self.t0 + 5)
        await pass(at: 7)
        await pass(at: 8)
        try fixture.emitImport(.end, processed: 10, at: Self.t0 + 9)
        await pass(at: 9)
        await transport.shutdown()

        #expect(pushes(server, to: start) == ["start@0/10"])
        #expect(
            pushes(server, to: update) == ["update@3/5", "update@5/5", "end@9/10"],
            "1 and 2 coalesced into 3; 4 held by the 5 s interval, then replaced by 5; the end at once")
        #expect(server.received.allSatisfy { $0.problems.isEmpty })
        #expect(state.delivered == 4 && state.failed == 0)
        let cursor = try #require(try fixture.store.readOutbox().cursors[update])
        #expect(cursor.last.timestamp == Self.t0 + 9 && cursor.deliveredAt == Self.t0 + 9)

        // The run's final send finds nothing left.
        let (report, error) = try await fixture.send(server, clock: clock)
        #expect(error == nil && report.pushes == 0, "\(report)")
    }

    @Test(.bug(id: 26)) func afterAnOutageTheNextPushIsTheCurrentStateNotABacklog() async throws {
        let fixture = PushFixture("watch-outage")
        let update = PushFixture.token(3)
        try await fixture.register(update, .import, kind: .update)
        let outage = OutageSwitch()
        let server = try await fixture.server { _ in outage.isOn ? APNsAnswer(status: 503, reason: "ServiceUnavailable") : .ok }
        defer { Task { try? await server.shutdown() } }
        let clock = ManualClock(Date(timeIntervalSince1970: TimeInterval(Self.t0)))
        let lines = LineLog()
        let (watcher, transport, providerToken) = try watcher(fixture, server, clock: clock, lines: lines)
        var state = PushWatcher.State()
        func pass(at offset: Int) async {
            clock.advance(TimeInterval(Self.t0 + offset) - clock.now.timeIntervalSince1970)
            await watcher.pass(transport: transport, providerToken: providerToken, state: &state, final: false)
        }

        try fixture.emitImport(.start, processed: 0, at: Self.t0)
        try fixture.emitImport(.update, processed: 1, at: Self.t0 + 1)
        await pass(at: 1)
        outage.set(true)
        try fixture.emitImport(.update, processed: 2, at: Self.t0 + 6)
        await pass(at: 6)
        #expect(state.failed == 1)
        await pass(at: 6)
        #expect(server.received.count == 2, "no second attempt before the backoff is over")
        try fixture.emitImport(.update, processed: 3, at: Self.t0 + 7)
        try fixture.emitImport(.update, processed: 4, at: Self.t0 + 8)
        outage.set(false)
        await pass(at: 8)
        await transport.shutdown()

        #expect(
            pushes(server, to: update) == ["update@1/5", "update@6/5", "update@8/5"],
            "the 503 for 2, then only 4: 2 and 3 are never replayed")
        #expect(lines.all.contains { $0.contains("status=503") && $0.contains("outcome=deferred") }, "\(lines.all)")
        #expect(try fixture.store.readOutbox().cursors[update]?.last.timestamp == Self.t0 + 8)
    }

    @Test(.bug(id: 26)) func aTokenRegisteredDuringTheImportJoinsAtTheCurrentState() async throws {
        let fixture = PushFixture("watch-join")
        let server = try await fixture.server()
        defer { Task { try? await server.shutdown() } }
        let clock = ManualClock(Date(timeIntervalSince1970: TimeInterval(Self.t0 + 2)))
        let (watcher, transport, providerToken) = try watcher(fixture, server, clock: clock)
        var state = PushWatcher.State()
        try fixture.emitImport(.start, processed: 0, at: Self.t0)
        try fixture.emitImport(.update, processed: 1, at: Self.t0 + 1)
        try fixture.emitImport(.update, processed: 2, at: Self.t0 + 2)
        let update = PushFixture.token(4), start = PushFixture.token(5)
        try await fixture.register(update, .import, kind: .update)
        try await fixture.register(start, .import, kind: .start)
        await watcher.pass(transport: transport, providerToken: providerToken, state: &state, final: false)
        #expect(pushes(server, to: update) == ["update@2/5"])
        #expect(pushes(server, to: start) == ["start@0/10"], "push-to-start joins the running import")

        // Once the import has ended, a new push-to-start token starts nothing.
        try fixture.emitImport(.end, processed: 10, at: Self.t0 + 3)
        let late = PushFixture.token(6)
        try await fixture.register(late, .import, kind: .start)
        await watcher.pass(transport: transport, providerToken: providerToken, state: &state, final: true)
        await transport.shutdown()
        #expect(pushes(server, to: late).isEmpty)
        #expect(pushes(server, to: update) == ["update@2/5", "end@3/10"])
    }

    @Test(.bug(id: 26)) func priorityTenIsBoundedPerTokenPerImport() async throws {
        let fixture = PushFixture("watch-budget")
        let update = PushFixture.token(7)
        try await fixture.register(update, .import, kind: .update)
        let server = try await fixture.server()
        defer { Task { try? await server.shutdown() } }
        let clock = ManualClock(Date(timeIntervalSince1970: TimeInterval(Self.t0)))
        let (watcher, transport, providerToken) = try watcher(fixture, server, clock: clock) { $0.maxUrgentPushesPerImport = 1 }
        var state = PushWatcher.State()
        try fixture.emitImport(.start, processed: 0, at: Self.t0)
        try fixture.emitImport(.end, processed: 10, at: Self.t0 + 1)
        await watcher.pass(transport: transport, providerToken: providerToken, state: &state, final: false)
        try fixture.emitImport(.start, processed: 0, at: Self.t0 + 2)
        try fixture.emitImport(.end, processed: 10, at: Self.t0 + 3)
        await watcher.pass(transport: transport, providerToken: providerToken, state: &state, final: true)
        await transport.shutdown()
        #expect(pushes(server, to: update) == ["end@1/10", "end@3/5"], "the second urgent push goes at 5")
    }
}

extension PushWatcherTests {
    /// The beer queue's user-triggered refresh (a beer added) goes out at once during an import:
    /// render's hourly budget bounds those snapshots, not the import's progress interval.
    @Test(.bug(id: 26)) func aBeerQueueRefreshDuringAnImportGoesOutAtOnce() async throws {
        let fixture = PushFixture("watch-beer")
        let beer = PushFixture.token(8)
        try await fixture.register(beer, .beerQueue, kind: .update)
        let server = try await fixture.server()
        defer { Task { try? await server.shutdown() } }
        let clock = ManualClock(Date(timeIntervalSince1970: TimeInterval(Self.t0)))
        let (watcher, transport, providerToken) = try watcher(fixture, server, clock: clock)
        var state = PushWatcher.State()
        try fixture.emitBeerQueue(.update, beers: ["A"], at: Self.t0)
        await watcher.pass(transport: transport, providerToken: providerToken, state: &state, final: false)
        clock.advance(1)
        try fixture.emitBeerQueue(.update, beers: ["A", "B"], at: Self.t0 + 1)
        await watcher.pass(transport: transport, providerToken: providerToken, state: &state, final: false)
        await transport.shutdown()
        #expect(pushes(server, to: beer) == ["update@0/5", "update@1/10"], "the added beer a second later, at 10")
    }
}

/// Whether the loopback APNs is "down" (answers 503).
final class OutageSwitch: @unchecked Sendable {
    private let lock = NSLock()
    private var on = false
    func set(_ value: Bool) { lock.withLock { on = value } }
    var isOn: Bool { lock.withLock { on } }
}
