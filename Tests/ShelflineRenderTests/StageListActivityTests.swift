import Foundation
import ShelflineCore
import ShelflineReports
import Testing

@testable import ShelflineRender

/// The import activity's words and bar come from the stage list's activity steps (`Stage.activity`),
/// not from a table of its own.
@Suite struct StageListActivityTests {
    /// Each stage's words, from where the earlier stages' shares end: the shipped bar.
    @Test(.bug(id: 37)) func eachStageShowsItsWordsWhereTheEarlierSharesEnd() {
        var status = ImportRunStatus(runDirectory: "/run", files: .pipelineDefaults)
        var steps: [String] = []
        var fractions: [Double] = []
        for stage in Stage.pipeline where stage.activity.text != nil {
            let step = ImportActivityRenderer.progressStep(for: status)
            steps.append(step.step)
            fractions.append(step.fraction)
            #expect(step.running == stage.name)
            status.finished.insert(stage.name)
        }
        #expect(steps == ["Reading file…", "Finding duplicates…", "Looking up books…", "Saving to library…"])
        #expect(fractions == [0, 0.05, 0.1, 0.95])
    }

    /// Another list (shares moved from lookup to dedupe) moves the bar with it; the running stage's
    /// progress file moves it across that stage's share.
    @Test(.bug(id: 37)) func theBarFollowsTheListsShares() {
        var stages = Stage.pipeline
        stages[1].activity.share = 0.15
        stages[2].activity.share = 0.75
        var status = ImportRunStatus(runDirectory: "/run", files: RunFiles(config: nil, stages: stages))
        status.finished = [.parse, .dedupe]
        #expect(ImportActivityRenderer.progressStep(for: status).fraction == 0.2)
        status.progress[.lookup] = StageProgress(stage: "lookup", processed: 48, total: 96, startedAt: 0, updatedAt: 1)
        let step = ImportActivityRenderer.progressStep(for: status)
        #expect(step.step == "Looking up books…" && step.fraction == 0.575)
    }

    /// A stage's part of the bar is its share of all the shares: a stage added with its own share
    /// (here as large as all the others') makes room without the others' entries changing.
    @Test(.bug(id: 37)) func aStageAddedMakesRoomWithoutEditingTheOthers() {
        var stages = Stage.pipeline
        var added = Stage.pipeline[2]
        added.activity.share = 1
        stages.insert(added, at: 2)
        var status = ImportRunStatus(runDirectory: "/run", files: RunFiles(config: nil, stages: stages))
        status.finished = [.parse, .dedupe]
        #expect(ImportActivityRenderer.progressStep(for: status).fraction == 0.05)
    }
}
