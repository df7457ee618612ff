import ShelflineCore

/// Parse's side of the stage contract (`Stage` in Core): its parameter type.
extension ParseParameters: StageParameters {
    public static var stage: StageName { .parse }
}
