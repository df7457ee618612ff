import ActivityTestSupport
import Foundation
import ShelflineActivity
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineBeerQueue

typealias Lifecycle = BeerQueueLifecycle

let beerA = QueuedBeer(id: "1", name: "Alpha", date: "Apr 08, 2025 @ 03:10:18pm")
let beerB = QueuedBeer(id: "2", name: "Beta", date: "Apr 09, 2025 @ 11:02:55am")
let shownA = Lifecycle.Display(queue: [beerA])
let shownAB = Lifecycle.Display(queue: [beerA, beerB])

@Suite struct BeerQueueLifecycleTests {
    /// (previous state, poll result, budget left, user-triggered) → decision: the issue's lifecycle.
    @Test(
        .bug(id: 6),
        arguments: [
            (Lifecycle.Previous.none, Lifecycle.Observation.queue([]), true, false, Lifecycle.Decision.nothing),
            (.none, .queue([beerA]), true, false, .start),
            (.ended, .queue([beerA]), true, false, .start),
            (.ended, .queue([]), true, false, .nothing),
            (.active(shownA, offline: false), .queue([beerA]), true, false, .nothing),
            (.active(shownA, offline: false), .queue([beerA, beerB]), true, false, .update),
            (.active(shownAB, offline: false), .queue([beerB, beerA]), true, false, .update),  // reordered
            (.active(shownA, offline: false), .queue([]), true, false, .end),
            (.active(shownA, offline: false), .queue([]), false, false, .end),  // end is never held back
            (.active(shownA, offline: false), .sessionExpired, true, false, .endSessionExpired),
            (.none, .sessionExpired, true, false, .nothing),
            (.ended, .sessionExpired, true, false, .nothing),
            (.active(shownA, offline: false), .fetchFailed, true, false, .markOffline),
            (.active(shownA, offline: true), .fetchFailed, true, false, .nothing),
            (.none, .fetchFailed, true, false, .nothing),
            (.ended, .fetchFailed, true, false, .nothing),
            (.active(shownA, offline: true), .queue([beerA]), true, false, .update),  // a good poll clears offline
            (.active(shownA, offline: true), .queue([]), true, false, .end),
            (.active(shownA, offline: false), .queue([beerA, beerB]), false, false, .deferred),  // budget spent
            (.active(shownA, offline: false), .queue([beerA, beerB]), false, true, .update),  // user-triggered
            (.active(shownA, offline: false), .fetchFailed, false, false, .deferred),
            (.none, .queue([beerA]), false, false, .start),  // start is not a periodic update
            // issue 15.6: the snapshot was corrupt, so what the phone shows is unknown: restate the truth.
            (.unknown, .queue([beerA]), true, false, .start),
            (.unknown, .queue([]), false, false, .end),
            (.unknown, .sessionExpired, true, false, .endSessionExpired),
            (.unknown, .fetchFailed, true, false, .nothing),
        ])
    func lifecycleDecisionFollowsTheTable(
        _ previous: Lifecycle.Previous, _ observation: Lifecycle.Observation, _ budgetLeft: Bool,
        _ userTriggered: Bool, _ expected: Lifecycle.Decision
    ) {
        #expect(
            Lifecycle.decide(
                previous: previous, observation: observation, budgetLeft: budgetLeft,
                userTriggered: userTriggered) == expected)
    }

    /// Changes beyond the fifth beer that leave the count alone change nothing the phone shows.
    @Test(.bug(id: 6)) func onlyTheDisplayedPartCounts() {
        let queue = (1...8).map { QueuedBeer(id: "\($0)", name: "Beer \($0)", date: "") }
        var swapped = queue
        swapped.swapAt(6, 7)
        #expect(
            Lifecycle.decide(
                previous: .active(Lifecycle.Display(queue: queue), offline: false),
                observation: .queue(swapped), budgetLeft: true, userTriggered: false) == .nothing)
    }
}

@Suite struct BeerQueueRendererTests {
    let t0 = Date(timeIntervalSince1970: 1_760_000_000)

    func renderer(_ temp: TemporaryDirectory, maxUpdates: Int = 10) -> BeerQueueRenderer {
        BeerQueueRenderer(
            workspace: Workspace(root: temp.file("ws")), attributes: BeerQueueAttributes(memberId: "123456", storeId: "13888"),
            storeLocation: "Example Saucer", maxUpdatesPerHour: maxUpdates, staleAfterMinutes: 15)
    }

    /// start → update → offline → recovered → session expired, each snapshot against the phone structs.
    @Test(.bug(id: 6)) func snapshotsFollowStartUpdateOfflineRecoveredAndExpired() throws {
        let temp = TemporaryDirectory("render-beer")
        let renderer = renderer(temp)
        var outcome = try renderer.render(.queue([beerA]), now: t0, userTriggered: false)
        #expect(outcome.decision == .start)
        #expect(outcome.snapshot?.apns.aps.staleDate == Int(t0.timeIntervalSince1970) + 15 * 60)
        #expect(outcome.snapshot?.contentState.lastUpdated == "2025-10-09T08:53:20Z")

        outcome = try renderer.render(.queue([beerA, beerB]), now: t0 + 360, userTriggered: false)
        #expect(outcome.decision == .update)

        outcome = try renderer.render(.fetchFailed, now: t0 + 720, userTriggered: false)
        #expect(outcome.decision == .markOffline)
        let offline = try #require(outcome.snapshot)
        #expect(offline.offline == true)
        #expect(offline.event == .update)
        #expect(offline.contentState.beers == [beerA, beerB], "the last known beers are kept")
        #expect(offline.contentState.lastUpdated == "2025-10-09T08:59:20Z", "still says when they were last seen")
        #expect(offline.apns.aps.staleDate == Int(t0.timeIntervalSince1970) + 720, "stale from now")

        #expect(try renderer.render(.fetchFailed, now: t0 + 1080, userTriggered: false).decision == .nothing)
        outcome = try renderer.render(.queue([beerA, beerB]), now: t0 + 1440, userTriggered: false)
        #expect(outcome.decision == .update)
        #expect(outcome.snapshot?.offline == nil)

        outcome = try renderer.render(.sessionExpired, now: t0 + 1800, userTriggered: false)
        #expect(outcome.decision == .endSessionExpired)
        let ended = try #require(outcome.snapshot)
        #expect(ended.contentState.beers.isEmpty && ended.contentState.queueCount == 0)
        #expect(ended.contentState.lastUpdated == "Please open app to refresh")
        #expect(ended.apns.aps.dismissalDate == Int(t0.timeIntervalSince1970) + 1800)

        let lines = try SnapshotContract.historyLines(renderer.store.historyPath)
        #expect(lines.count == 5)
        for line in lines { try SnapshotContract.checkBeerQueue(line) }
        #expect(!String(decoding: lines.last!, as: UTF8.self).contains("Alpha"), "no beer names after the session expired")
    }

    /// At most `maxUpdatesPerHour` periodic updates per rolling hour; user-triggered ones are free.
    @Test(.bug(id: 6)) func hourlyBudgetLimitsOnlyPeriodicUpdates() throws {
        let temp = TemporaryDirectory("render-budget")
        let renderer = renderer(temp, maxUpdates: 3)
        try renderer.render(.queue([beerA]), now: t0, userTriggered: false)
        var decisions: [Lifecycle.Decision] = []
        for minute in 1...5 {
            let queue = (0...minute).map { QueuedBeer(id: "\($0)", name: "Beer \($0)", date: "") }
            decisions.append(try renderer.render(.queue(queue), now: t0 + Double(minute * 6 * 60), userTriggered: false).decision)
        }
        #expect(decisions == [.update, .update, .update, .deferred, .deferred])
        let queue7 = (0...7).map { QueuedBeer(id: "\($0)", name: "Beer \($0)", date: "") }
        #expect(try renderer.render(.queue(queue7), now: t0 + 1900, userTriggered: true).decision == .update)
        // An hour after the first update, the budget has room again.
        let queue9 = (0...9).map { QueuedBeer(id: "\($0)", name: "Beer \($0)", date: "") }
        #expect(try renderer.render(.queue(queue9), now: t0 + 360 + 3601, userTriggered: false).decision == .update)
        #expect(FileManager.default.fileExists(atPath: renderer.budgetPath))
    }

    /// 200 beers, names with quotes, emoji, RTL text and absurd lengths: bounded, decodable bodies.
    @Test(
        .bug(id: 6),
        arguments: [
            (200, "Plain Pale Ale (Draft)"),
            (200, #"The "Quoted" Stout \ Back\slash (CAN)"#),
            (200, "🍺🍻 Emoji IPA 🤖👩‍👩‍👧‍👦 (BTL)"),
            (200, "בירה שחורה عربي (Draft)"),
            (6, String(repeating: "Very Long Name 🍺 \u{202E}", count: 400)),
            (1, String(repeating: "x", count: 20_000)),
        ])
    func bodiesStayWithin4096Bytes(_ count: Int, _ name: String) throws {
        let temp = TemporaryDirectory("render-size")
        let renderer = renderer(temp)
        let queue = (1...count).map {
            QueuedBeer(
                id: "\(4_400_000 + $0)", name: ContainerLabel.displayName("#\($0) \(name)"), date: "Apr 08, 2025 @ 03:10:18pm")
        }
        let outcome = try renderer.render(.queue(queue), now: t0, userTriggered: false)
        let snapshot = try #require(outcome.snapshot)
        #expect(try snapshot.pushBodySize() <= 4096)
        #expect(snapshot.contentState.queueCount == count)
        #expect(snapshot.contentState.beers.count <= 5)
        #expect(snapshot.contentState.beers.count >= 1, "a beer always fits once its name is shortened")
        #expect(snapshot.contentState.beers.first?.id == "4400001")
        let data = try Data(contentsOf: URL(fileURLWithPath: renderer.store.snapshotPath))
        let (_, state, _) = try SnapshotContract.checkBeerQueue(data)
        #expect(state.queueCount == count)
    }
}
