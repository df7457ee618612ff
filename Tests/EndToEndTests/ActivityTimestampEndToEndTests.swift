import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import TestTraits
import Testing

/// An activity's timestamps never go backwards: ActivityKit ignores an update or end older than
/// what it shows. The clock "moving back" is the state an earlier run left: its snapshot two
/// hours ahead of this run's clock.
@Suite(.bug(id: 23), .offCooperativePool) struct ActivityTimestampEndToEndTests {
    typealias E2E = RenderEndToEndTests

    /// Moves the latest snapshot's timestamps `seconds` into the future, as a run whose clock was
    /// that far ahead would have written it; returns its new timestamp.
    static func shiftLatestSnapshot(_ temp: TemporaryDirectory, _ activity: String = "beer-queue", by seconds: Int) throws -> Int
    {
        let path = temp.file("ws/activity/\(activity).json")
        var snapshot = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
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
        #expect(
            timestamp.map { $0 >= start } == true && pushed == timestamp,
            "update \(String(describing: timestamp)) < start \(start)")

        let empty = temp.write("empty.json", #"{"beers": []}"#)
        result = try await E2E.beerQueueDetached(temp, ["--json", empty, "--quiet"])
        #expect(result.status == 0, "\(result)")
        snapshot = try E2E.snapshot(temp)
        #expect(snapshot["event"] as? String == "end", "\(snapshot)")
        (timestamp, pushed) = Self.timestamps(snapshot)
        #expect(
            timestamp.map { $0 >= start } == true && pushed == timestamp, "end \(String(describing: timestamp)) < start \(start)")
    }

    @Test func importEndAfterTheClockMovedBackIsNotOlderThanTheStart() throws {
        let temp = TemporaryDirectory("timestamps-import-e2e")
        let run = temp.file("ws/runs/0123456789abcdef")
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: true)
        let render = {
            try ExecutableRunner.run(
                "shelfline-render", ["import", "--run", run, "--workspace", temp.file("ws"), "--quiet"],
                in: temp.path)
        }
        try writeJSONFile(
            ParseReport(
                input: "export.csv", format: .goodreads, delimiter: ",", header: ["Title"], headerByteOffset: 0,
                headerByteLength: 5, rowsRead: 2, rowsWritten: 2, rowsRejected: 0, fieldsRepaired: 0),
            to: run + "/parse-report.json")
        var result = try render()
        #expect(result.status == 0, "\(result)")
        let start = try Self.shiftLatestSnapshot(temp, "import", by: 7200)

        var outcomes = ImportOutcomes()
        outcomes.added = 2
        var enrichment = EnrichmentCounts()
        enrichment.matchedByIsbn = 2
        try writeJSONFile(
            MergeReport(
                importId: "i", rowsRead: 2, outcomes: outcomes, enrichment: enrichment, libraryBooks: 2,
                ledger: "ledger.ndjson.gz", review: "review.json", failedRows: "failed-rows.csv", reviewOpen: 0),
            to: run + "/merge-report.json")
        result = try render()
        #expect(result.status == 0, "\(result)")
        let snapshot = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: temp.file("ws/activity/import.json")))) as? [String: Any])
        #expect(snapshot["event"] as? String == "end", "\(snapshot)")
        let (timestamp, pushed) = Self.timestamps(snapshot)
        #expect(
            timestamp.map { $0 >= start } == true && pushed == timestamp, "end \(String(describing: timestamp)) < start \(start)")
    }
}
