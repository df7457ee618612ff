import ShelflineCore

/// Dedupe's and merge's side of the stage contract (`Stage` in Core): parameter and report types.
extension DedupeParameters: StageParameters {
    public static var stage: StageName { .dedupe }
}

extension MergeParameters: StageParameters {
    public static var stage: StageName { .merge }
}

extension DedupeReport: StageReport {
    /// Every record read, whatever its mark.
    public var rowCount: Int { rowsIn }
}
