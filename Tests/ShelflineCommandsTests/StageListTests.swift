import ShelflineCommands
import ShelflineCore
import ShelflineReports
import Testing

/// A stage is its entry in the stage list (`Stage.pipeline`): the names and their order, the stage
/// types the commands run and the import activity's bar all follow it.
@Suite struct StageListTests {
    @Test(.bug("37")) func stageNamesAndTypesFollowTheStageList() {
        #expect(Stage.pipeline.map(\.name) == StageName.allCases)
        #expect(PipelineStages.all.map { $0.description } == Stage.pipeline)
        #expect(PipelineStages.descriptions == Stage.pipeline)
    }

    @Test(.bug("37")) func activitySharesMakeTheWholeBar() {
        let total = Stage.pipeline.map(\.activity.share).reduce(0, +)
        #expect(abs(total - 1) < 1e-9, "\(total)")
        #expect(Stage.pipeline.allSatisfy { $0.activity.share > 0 })
        // Only the last stage, which runs once the activity has ended, has no words of its own.
        #expect(Stage.pipeline.dropLast().allSatisfy { $0.activity.text != nil })
    }
}
