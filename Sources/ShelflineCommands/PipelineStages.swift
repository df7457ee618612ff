import ShelflineCore
import ShelflineLibrary
import ShelflineLookup
import ShelflineParse
import ShelflineRender

/// The pipeline's stages as types, in order (each names its stage, `PipelineStage.name`): what
/// `shelfline run` validates every parameter object with before any stage starts, and reads a
/// finished stage's report (`rows=`) with.
enum PipelineStages {
    static let all: [any PipelineStage.Type] = [
        ParseStage.self, DedupeStage.self, LookupStage.self, MergeStage.self, RenderStage.self,
    ]

    static func named(_ name: StageName) -> any PipelineStage.Type {
        precondition(all.map { $0.name } == StageName.allCases, "PipelineStages.all must list every stage, in order")
        return all[StageName.allCases.firstIndex(of: name)!]
    }

    /// Decodes and checks `stage`'s parameters as its own type does.
    static func validateParameters(_ stage: StageName, config: PipelineConfig, path: String) throws {
        func validate<Stage: PipelineStage>(_ type: Stage.Type) throws {
            _ = try config.parameters(Stage.Parameters.self, path: path)
        }
        try validate(named(stage))
    }
}
