import ShelflineCore

/// Render's side of the stage contract (`Stage` in Core): its parameter type (render writes no
/// report of its own).
extension RenderParameters: StageParameters {
    public static var stage: StageName { .render }
}
