import ShelflineLibrary
import TestSupport
import Testing

@testable import ShelflineCore

/// Dedupe's and merge's side of the stage protocol: their ranges, declared once on their parameter types.
@Suite struct LibraryStageContractTests {
    @Test func parameterRangesAreTheOnesTheSchemaStates() throws {
        #expect(try PipelineSchemaRanges.mismatches(of: DedupeStage.self) == [])
        #expect(try PipelineSchemaRanges.mismatches(of: MergeStage.self) == [])
    }

    @Test func bucketsWithinRangeButNotAPowerOfTwoAreRefusedByTheType() throws {
        let config = PipelineConfig(stages: [
            StageDeclaration(name: .merge, inputs: [], outputs: [], parameters: .object(["buckets": .number(100)]))
        ])
        let error = try #require(throws: ConfigError.self) { try config.parameters(MergeParameters.self, path: "p.json") }
        #expect("\(error)".contains("power of two"), "\(error)")
    }
}
