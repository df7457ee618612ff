import ShelflineCore
import ShelflineReports

extension DedupeStage: PipelineStage {
    public typealias Parameters = DedupeParameters
    public typealias Report = DedupeReport

    public static var description: Stage { .dedupe }

    public static func run(_ job: StageJob<NoStageArguments>, context: StageContext) async throws -> DedupeReport {
        let parameters = try context.parameters(DedupeParameters.self)
        let result = try run(
            input: job.input(.records), output: job.output(.records), workspace: context.workspace,
            parameters: parameters, cancellation: context.cancellation)
        context.log.event([
            "stage": "dedupe", "rows": result.rowsIn, "new": result.new,
            "duplicateInFile": result.duplicateInFile, "inLibrary": result.inLibrary,
            "libraryBooks": result.libraryBooks,
        ])
        return result
    }
}

extension MergeStage: PipelineStage {
    public typealias Parameters = MergeParameters
    public typealias Report = MergeReport

    /// What `shelfline-merge` takes besides its files.
    public struct Arguments: Sendable {
        /// Default: the content hash of the source export.
        public var importId: String?
        /// What every stored import says of its ISBNs' titles (`shelfline rebuild`); nil: this import's alone.
        public var isbnTitles: ISBNTitles?

        public init(importId: String? = nil, isbnTitles: ISBNTitles? = nil) {
            self.importId = importId
            self.isbnTitles = isbnTitles
        }
    }

    public static var description: Stage { .merge }

    /// The library and its previous generation.
    public static func otherInputs(_ job: StageJob<Arguments>, workspace: Workspace) -> [String] {
        description.unlistedInputs.compactMap { workspace.file(named: $0.defaultName) } + [workspace.libraryBackup]
    }

    /// With dedupe's parameters: merge resolves keys exactly as dedupe did.
    public static func run(_ job: StageJob<Arguments>, context: StageContext) async throws -> MergeReport {
        let dedupe = try context.parameters(DedupeParameters.self)
        let parameters = try context.parameters(MergeParameters.self)
        return try run(
            job, workspace: context.workspace, dedupe: dedupe, parameters: parameters,
            cancellation: context.cancellation, log: context.log, now: context.now)
    }
}

/// Read-only once learnt, it goes to merge with the job.
extension ISBNTitles: @unchecked Sendable {}

extension DedupeParameters: StageParameters {
    public static var stage: StageName { .dedupe }
}

extension MergeParameters: StageParameters {
    public static var stage: StageName { .merge }
    public static let ranges: [String: ConfigLimits.Range] = ["buckets": .within(1, 4096), "libraryLevel": .within(1, 9)]
}

extension DedupeReport: FileStageReport {
    public var rowCount: Int { rowsIn }
}
