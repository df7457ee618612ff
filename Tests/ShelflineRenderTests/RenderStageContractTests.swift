import ShelflineCore
import ShelflineRender
import Testing
import TestSupport

/// Render's side of the stage protocol: its ranges, declared once on `RenderParameters`.
@Suite struct RenderStageContractTests {
    @Test func parameterRangesAreTheOnesTheSchemaStates() throws {
        #expect(try PipelineSchemaRanges.mismatches(of: RenderStage.self) == [])
    }
}
