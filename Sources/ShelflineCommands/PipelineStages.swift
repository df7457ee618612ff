import ShelflineCore
import ShelflineLibrary
import ShelflineLookup
import ShelflineParse
import ShelflineRender
import ShelflineReports

/// The pipeline's stage types, one for each stage name, in `StageName`'s order: `shelfline`
/// validates every parameter object with them before any stage starts and reads a finished
/// stage's report (`rows=`) with them. Their descriptions are the pipeline's stage list
/// (`Stage.pipeline`, which tests keep equal to theirs).
public enum PipelineStages {
    public static let all: [any PipelineStage.Type] = StageName.allCases.map(named)

    /// The type of the stage named `name` (the compiler asks for one for each name).
    static func named(_ name: StageName) -> any PipelineStage.Type {
        switch name {
        case .parse: ParseStage.self
        case .dedupe: DedupeStage.self
        case .lookup: LookupStage.self
        case .merge: MergeStage.self
        case .render: RenderStage.self
        }
    }

    /// Decodes and checks `stage`'s parameters as its own type does.
    static func validateParameters(_ stage: StageName, config: PipelineConfig, path: String) throws {
        func validate<Stage: PipelineStage>(_ type: Stage.Type) throws {
            _ = try config.parameters(Stage.Parameters.self, path: path)
        }
        try validate(named(stage))
    }
}
