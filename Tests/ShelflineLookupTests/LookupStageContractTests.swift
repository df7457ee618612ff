import ShelflineCore
import ShelflineLookup
import TestSupport
import Testing

/// Lookup's side of the stage protocol: its ranges, declared once on `LookupParameters`.
@Suite struct LookupStageContractTests {
    @Test func parameterRangesAreTheOnesTheSchemaStates() throws {
        #expect(try PipelineSchemaRanges.mismatches(of: LookupStage.self) == [])
    }
}
