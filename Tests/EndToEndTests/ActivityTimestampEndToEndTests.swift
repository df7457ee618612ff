import Foundation
import ShelflineCore
import TestSupport
import Testing

/// An activity's timestamps never go backwards: ActivityKit ignores an update or end older than
/// what it shows. The clock "moving back" is the state an earlier run left: its snapshot two
/// hours ahead of this run's clock.
@Suite(.bug("issue 23")) struct ActivityTimestampEndToEndTests {
    typealias E2E = RenderEndToEndTests

    /// Moves the latest beer-queue snapshot's timestamps `seconds` into the future, as a run whose
    /// clock was that far ahead would have written it; returns its new timestamp.
    static func shiftLatestSnapshot(_ temp: TemporaryDirectory, by seconds: Int) throws -> Int {
        let path = temp.file("ws/activity/beer-queue.json")
        var snapshot = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        let shifted = try #require(snapshot["timestamp"] as? Int) + seconds
        snapshot["timestamp"] = shifted
        var apns = try #require(snapshot["apns"] as? [String: Any])
        var aps = try #require(apns["aps"] as? [String: Any])
        aps["timestamp"] = shifted
        apns["aps"] = aps
        snapshot["apns"] = apns
        try JSONSerialization.data(withJSONObject: snapshot, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
        return shifted
    }

    static func timestamps(_ snapshot: [String: Any]) -> (Int?, Int?) {
        (snapshot["timestamp"] as? Int, ((snapshot["apns"] as? [String: Any])?["aps"] as? [String: Any])?["timestamp"] as? Int)
    }

    @Test func beerQueueUpdateAndEndAfterTheClockMovedBackAreNotOlderThanTheStart() async throws {
        let temp = try E2E.setUp()
        var result = try await E2E.beerQueueDetached(temp, ["--json", E2E.examples + "/queue.json", "--quiet"])
        #expect(result.status == 0, "\(result)")
        #expect(try E2E.snapshot(temp)["event"] as? String == "start")
        let start = try Self.shiftLatestSnapshot(temp, by: 7200)

        // One beer left: an update, then the queue empties: the end.
        let oneBeer = temp.write("one.json", #"{"beers": [{"id": "4418210", "name": "Founders KBS", "date": "Apr 08, 2025"}]}"#)
        result = try await E2E.beerQueueDetached(temp, ["--json", oneBeer, "--quiet"])
        #expect(result.status == 0, "\(result)")
        var snapshot = try E2E.snapshot(temp)
        #expect(snapshot["event"] as? String == "update", "\(snapshot)")
        var (timestamp, pushed) = Self.timestamps(snapshot)
        #expect(timestamp.map { $0 >= start } == true && pushed == timestamp, "update \(String(describing: timestamp)) < start \(start)")

        let empty = temp.write("empty.json", #"{"beers": []}"#)
        result = try await E2E.beerQueueDetached(temp, ["--json", empty, "--quiet"])
        #expect(result.status == 0, "\(result)")
        snapshot = try E2E.snapshot(temp)
        #expect(snapshot["event"] as? String == "end", "\(snapshot)")
        (timestamp, pushed) = Self.timestamps(snapshot)
        #expect(timestamp.map { $0 >= start } == true && pushed == timestamp, "end \(String(describing: timestamp)) < start \(start)")
    }
}
