import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import Testing

@testable import ShelflineOrchestrator

#if canImport(Glibc)
    import Glibc
#endif

/// The orchestrator's own state files: failed imports whose file is gone, `runs/latest` that is
/// not a link, and the one count of rows still to review.
@Suite(.bug(id: 23)) struct WorkspaceStateTests {
    func entry(_ input: String, run: String? = nil) -> FailedInputs.Entry {
        .init(input: input, runId: run, exitStatus: 65, message: "not an export", failedAt: 1)
    }

    @Test func failedEntriesWhoseFileIsGoneAreDroppedOnceAndTheRestKept() throws {
        let dir = TemporaryDirectory("failed-inputs")
        let failed = FailedInputs(workspace: Workspace(root: dir.path))
        let kept = dir.write("kept.txt", "x"), gone = dir.write("gone.txt", "x")
        for input in [kept, gone, "relative.txt"] { try failed.record(entry(input)) }
        try FileManager.default.removeItem(atPath: gone)
        #expect(try failed.dropMissing().map(\.input) == [gone])
        #expect(failed.entries().map(\.input) == [kept, "relative.txt"], "a relative entry cannot be judged: it stays")
        #expect(try failed.dropMissing().isEmpty, "said once")
        #expect(try failed.removeAll() == 2)
        #expect(failed.entries().isEmpty)
    }

    @Test func latestThatIsNotALinkIsRefusedAndAFailedRenameLeavesNoTemporaryLink() throws {
        let dir = TemporaryDirectory("latest")
        let workspace = Workspace(root: dir.path)
        try Workspace.makeDirectory(workspace.runsDirectory + "/latest")
        #expect(throws: FileError.self) { try RunDirectory.refuseUnlinkedLatest(in: workspace) }
        let run = RunDirectory(id: "0123456789abcdef", workspace: workspace)
        #expect(throws: FileError.self) { try run.markLatest(in: workspace) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.runsDirectory) == ["latest"])
        // A link (even a dangling one) is what `latest` is meant to be.
        try FileManager.default.removeItem(atPath: workspace.runsDirectory + "/latest")
        try run.markLatest(in: workspace)
        try RunDirectory.refuseUnlinkedLatest(in: workspace)
    }

    @Test(arguments: [(3, nil as Int?, 3, 0), (3, 1, 1, 2), (1, 0, 0, 1), (0, 0, 0, 0)])
    func summaryCountsRowsStillToReviewAfterDecisions(needsReview: Int, reviewOpen: Int?, toReview: Int, reviewed: Int) {
        var enrichment = EnrichmentCounts()
        enrichment.needsReview = needsReview
        enrichment.matchedByIsbn = 2
        let report = MergeReport(
            importId: "i", rowsRead: needsReview + 2, outcomes: ImportOutcomes(), enrichment: enrichment,
            libraryBooks: 5, ledger: "l", review: "r", failedRows: "f", reviewOpen: reviewOpen)
        let outcome = RunOutcome(
            run: RunDirectory(id: "r", workspace: Workspace(root: "/ws")), stagesRun: [], report: report,
            page: "report.html")
        #expect(report.rowsToReview == toReview && report.rowsReviewed == reviewed)
        #expect(outcome.summary.contains("\(toReview) need review"))
        #expect(outcome.summary.contains("\(reviewed) reviewed") == (reviewed > 0))
        #expect(outcome.nextSteps.contains { $0.hasPrefix("next: \(toReview) row(s) need review") } == (toReview > 0))
    }
}
