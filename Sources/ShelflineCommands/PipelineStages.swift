import ShelflineCore
import ShelflineLibrary
import ShelflineLookup
import ShelflineParse
import ShelflineRender
import ShelflineReports

/// The pipeline's stage types, one for each entry of `Stage.pipeline`, in its order: `shelfline`
/// validates every parameter object with them before any stage starts and reads a finished
/// stage's report (`rows=`) with them. Their descriptions are the pipeline's stage list, which the
/// commands hand to what needs several (the orchestrator, the built-in default configuration, `RunFiles`).
public enum PipelineStages {
    public static let all: [any PipelineStage.Type] = [
        ParseStage.self, DedupeStage.self, LookupStage.self, MergeStage.self, RenderStage.self,
    ]

    /// Every stage's description, in order.
    public static var descriptions: [Stage] { Stage.pipeline }

    static func named(_ name: StageName) -> any PipelineStage.Type {
        precondition(
            all.map { $0.description } == Stage.pipeline, "PipelineStages.all must list Stage.pipeline's stages, in order")
        return all[Stage.pipeline.firstIndex { $0.name == name }!]
    }

    /// Decodes and checks `stage`'s parameters as its own type does.
    static func validateParameters(_ stage: StageName, config: PipelineConfig, path: String) throws {
        func validate<Stage: PipelineStage>(_ type: Stage.Type) throws {
            _ = try config.parameters(Stage.Parameters.self, path: path)
        }
        try validate(named(stage))
    }
}
