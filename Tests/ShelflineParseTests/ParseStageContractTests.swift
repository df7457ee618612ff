import ShelflineParse
import TestSupport
import Testing

@testable import ShelflineCore

/// Parse's side of the stage protocol: its ranges, declared once on `ParseParameters`.
@Suite struct ParseStageContractTests {
    @Test func parameterRangesAreTheOnesTheSchemaStates() throws {
        #expect(try PipelineSchemaRanges.mismatches(of: ParseStage.self) == [])
    }

    @Test func aNumberOutOfItsRangeIsAConfigErrorNamingTheKey() throws {
        let config = PipelineConfig(stages: [
            StageDeclaration(name: .parse, inputs: ["{csv}"], outputs: [], parameters: .object(["minRejectedRows": .number(-1)]))
        ])
        let error = try #require(throws: ConfigError.self) { try config.parameters(ParseParameters.self, path: "p.json") }
        #expect("\(error)".contains("stages[0].parameters.minRejectedRows"), "\(error)")
        #expect("\(error)".contains("expected a number ≥ 0, found -1"), "\(error)")
    }
}
