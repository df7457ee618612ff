import ShelflineCore
import ShelflineRender
import TestSupport
import Testing

/// Render's side of the stage protocol: its ranges, declared once on `RenderParameters`.
@Suite struct RenderStageContractTests {
    @Test func parameterRangesAreTheOnesTheSchemaStates() throws {
        #expect(try PipelineSchemaRanges.mismatches(of: RenderStage.self) == [])
    }
}
