import Foundation
import ShelflineCore
import ShelflineRender
import TestSupport
import Testing

/// Issue 13.5: while merge runs, its progress file keeps the import activity updating.
extension ImportActivityTests {
    @Test(.bug(id: 13)) func mergeProgressKeepsTheActivityUpdating() throws {
        let temp = TemporaryDirectory("render-merge-progress")
        let workspace = Workspace(root: temp.file("ws"))
        let run = temp.file("ws/runs/run-merge")
        try Workspace.makeDirectory(run)
        let renderer = ImportActivityRenderer(workspace: workspace, files: .pipelineDefaults)
        try Fixtures.write(Fixtures.parseReport(rowsRead: 100, rejected: 4), to: run + "/parse-report.json")
        temp.write("ws/runs/run-merge/dedupe-report.json", #"{"duplicateInFile": 6}"#)
        let lookup = StageProgress(
            stage: "lookup", processed: 96, total: 96, startedAt: at(1).timeIntervalSince1970,
            updatedAt: at(20).timeIntervalSince1970, finished: true)
        try Fixtures.write(lookup, to: run + "/lookup-progress.json")
        temp.write("ws/runs/run-merge/lookup-report.json", #"{"counts": {"notEnriched": 8}}"#)
        _ = try renderer.refresh(runDirectory: run, now: at(0))
        var result = try renderer.refresh(runDirectory: run, now: at(21))
        #expect(result.contentState.currentStep == "Saving to library…")
        let saving = result.contentState.progress

        var progress = StageProgress(
            stage: "merge", processed: 0, total: 192, startedAt: at(21).timeIntervalSince1970,
            updatedAt: at(21).timeIntervalSince1970)
        var fractions: [Double] = [saving]
        for (step, processed) in [96, 150, 192].enumerated() {
            progress.processed = processed
            progress.updatedAt = at(24 + 3 * Double(step)).timeIntervalSince1970
            try Fixtures.write(progress, to: run + "/merge-progress.json")
            result = try renderer.refresh(runDirectory: run, now: at(24 + 3 * Double(step)))
            #expect(result.emitted == [.update], "merge at \(processed)/192 emits an update")
            #expect(result.contentState.currentStep == "Saving to library…")
            fractions.append(result.contentState.progress)
        }
        #expect(fractions == fractions.sorted() && Set(fractions).count == fractions.count)
        #expect(fractions.last! < 1, "only the merge report completes the activity")
    }
}
