import ShelflineCore
import ShelflineLibrary
import ShelflineLookup
import ShelflineParse
import ShelflineRender

/// The pipeline's stages as types, in order (each declares its description, `PipelineStage.description`):
/// the one list of stages. `shelfline` validates every parameter object with them before any stage
/// starts and reads a finished stage's report (`rows=`) with them, and hands their descriptions to
/// what needs several (the orchestrator, the built-in default configuration, `RunFiles`).
public enum PipelineStages {
    public static let all: [any PipelineStage.Type] = [
        ParseStage.self, DedupeStage.self, LookupStage.self, MergeStage.self, RenderStage.self,
    ]

    /// Every stage's description, in order.
    public static let descriptions: [Stage] = all.map { $0.description }

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
