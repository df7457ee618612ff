import Foundation
import ShelflineActivity
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineBeerQueue

/// An activity's timestamps never go backwards when the clock does (ActivityKit ignores an update
/// or end older than what it shows); a new activity after an `end` starts from the clock again.
@Suite(.bug(id: 23)) struct ActivityTimestampTests {
    let t0 = Date(timeIntervalSince1970: 1_760_000_000)

    @Test func beerQueueSnapshotsAfterTheClockMovesBackKeepTheActivitysTime() throws {
        let temp = TemporaryDirectory("timestamps-beer")
        let renderer = BeerQueueRenderer(
            workspace: Workspace(root: temp.file("ws")),
            attributes: BeerQueueAttributes(memberId: "123456", storeId: "13888"),
            storeLocation: "Example Saucer")
        let later = t0 + 7200
        let start = try #require(try renderer.render(.queue([beerA]), now: later, userTriggered: false).snapshot)
        #expect(start.timestamp == Int(later.timeIntervalSince1970))
        // The clock moves back two hours.
        let update = try #require(try renderer.render(.queue([beerA, beerB]), now: t0, userTriggered: false).snapshot)
        let offline = try #require(try renderer.render(.fetchFailed, now: t0 + 60, userTriggered: false).snapshot)
        let end = try #require(try renderer.render(.queue([]), now: t0 + 120, userTriggered: false).snapshot)
        #expect([update.event, offline.event, end.event] == [.update, .update, .end])
        for snapshot in [update, offline, end] {
            #expect(snapshot.timestamp >= start.timestamp && snapshot.apns.aps.timestamp == snapshot.timestamp)
        }
        // A new activity after the end follows the clock again.
        let next = try #require(try renderer.render(.queue([beerB]), now: t0 + 180, userTriggered: false).snapshot)
        #expect(next.event == .start && next.timestamp == Int(t0.timeIntervalSince1970) + 180)
    }
}
