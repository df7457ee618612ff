import ShelflineCore
import ShelflineLibrary
import ShelflineLookup
import ShelflineParse
import ShelflineRender

/// The stage libraries' types behind Core's stage descriptions (`Stage`), which cannot name
/// them: the one place a stage is bound to the type that decodes its parameters and the type of
/// its report. The switches are exhaustive, so a new stage does not compile until it is bound.
enum StageTypes {
    static func parameters(_ stage: StageName) -> any StageParameters.Type {
        switch stage {
        case .parse: ParseParameters.self
        case .dedupe: DedupeParameters.self
        case .lookup: LookupParameters.self
        case .merge: MergeParameters.self
        case .render: RenderParameters.self
        }
    }

    /// Nil for a stage without a report of its own (render).
    static func report(_ stage: StageName) -> (any StageReport.Type)? {
        switch stage {
        case .parse: ParseReport.self
        case .dedupe: DedupeReport.self
        case .lookup: LookupReport.self
        case .merge: MergeReport.self
        case .render: nil
        }
    }
}
