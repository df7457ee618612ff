import Foundation
import ShelflineActivity
import ShelflineCore
import ShelflineRender
import TestSupport
import Testing

/// An activity's timestamps never go backwards when the clock does (ActivityKit ignores an update
/// or end older than what it shows); a new activity after an `end` starts from the clock again.
@Suite(.bug(id: 23)) struct ActivityTimestampTests {
    let t0 = Date(timeIntervalSince1970: 1_760_000_000)

    @Test func importSnapshotsAfterTheClockMovesBackKeepTheActivitysTime() throws {
        let temp = TemporaryDirectory("timestamps-import")
        let run = temp.file("ws/runs/run-1")
        try Workspace.makeDirectory(run)
        let renderer = ImportActivityRenderer(workspace: Workspace(root: temp.file("ws")), files: .pipelineDefaults)
        let later = t0 + 7200
        #expect(try renderer.refresh(runDirectory: run, now: later).emitted == [.start])
        let start = try #require(try renderer.store.latest(ImportActivityRenderer.Snapshot.self))

        try Fixtures.write(Fixtures.parseReport(rowsRead: 10, rejected: 1), to: run + "/parse-report.json")
        #expect(try renderer.refresh(runDirectory: run, now: t0, force: true).emitted == [.update])
        let update = try #require(try renderer.store.latest(ImportActivityRenderer.Snapshot.self))
        try renderer.interrupt(runDirectory: run, now: t0 + 1, .paused(stage: "lookup"))
        let paused = try #require(try renderer.store.latest(ImportActivityRenderer.Snapshot.self))
        try Fixtures.write(
            Fixtures.mergeReport(
                added: 9, updated: 0, duplicates: 0, rejected: 1, needsReview: 0, notEnriched: 0,
                matchedByIsbn: 9), to: run + "/merge-report.json")
        #expect(try renderer.refresh(runDirectory: run, now: t0 + 2).emitted == [.end])
        let end = try #require(try renderer.store.latest(ImportActivityRenderer.Snapshot.self))
        for snapshot in [update, paused, end] {
            #expect(
                snapshot.timestamp >= start.timestamp && snapshot.apns.aps.timestamp == snapshot.timestamp, "\(snapshot.event)")
        }
    }
}
