import ShelflineCore
import ShelflineReports
import Testing

@testable import ShelflineCommands

/// A stage is its entry in the stage list (`Stage.pipeline`): the names and their order, the stage
/// types the commands run and the import activity's bar all follow it.
@Suite struct StageListTests {
    /// Each name's entry and type are that stage's: a switch arm naming another stage's compiles.
    @Test(.bug(id: 37)) func eachNameHasItsOwnEntryAndType() {
        for name in StageName.allCases {
            #expect(Stage.entry(name).name == name)
            #expect(PipelineStages.named(name).description == Stage.entry(name), "\(name)")
        }
        #expect(Stage.pipeline.map(\.name) == StageName.allCases)
        #expect(StageName.allCases.map { PipelineStages.named($0).description } == Stage.pipeline)
    }

    /// Every stage has a part of the bar (the parts are the shares over their sum, whatever it is).
    @Test(.bug(id: 37)) func everyStageHasAPartOfTheBar() {
        #expect(Stage.pipeline.allSatisfy { $0.activity.share > 0 })
        // Only the last stage, which runs once the activity has ended, has no words of its own.
        #expect(Stage.pipeline.dropLast().allSatisfy { $0.activity.text != nil })
    }
}
