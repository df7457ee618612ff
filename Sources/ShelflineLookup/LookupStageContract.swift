import ShelflineCore

/// Lookup's side of the stage contract (`Stage` in Core): its parameter and report types.
extension LookupParameters: StageParameters {
    public static var stage: StageName { .lookup }
}

extension LookupReport: StageReport {
    /// Every record read; `counts` sum to it.
    public var rowCount: Int { recordsRead }
}
