import ShelflineCore
import ShelflineLibrary
import ShelflineLookup
import ShelflineParse
import ShelflineRender
import ShelflineReports

/// The pipeline's stage type of each `StageName`: `shelfline` validates every parameter object
/// with them before any stage starts, and reads a finished stage's report with them.
public enum PipelineStages {
    /// An exhaustive switch: the compiler asks for a type for each name.
    static func named(_ name: StageName) -> any PipelineStage.Type {
        switch name {
        case .parse: ParseStage.self
        case .dedupe: DedupeStage.self
        case .lookup: LookupStage.self
        case .merge: MergeStage.self
        case .render: RenderStage.self
        }
    }
}
