import ShelflineCore
import ShelflineReports

/// Lookup as a pipeline stage.
extension LookupStage: PipelineStage {
    public typealias Parameters = LookupParameters
    public typealias Report = LookupReport

    /// What `shelfline-lookup` takes besides its files.
    public struct Arguments: Sendable {
        /// `--catalog` files; when empty, the `catalog` parameter.
        public var catalog: [String]
        /// `--source` names; when empty, the `sources` parameter.
        public var sources: [String]
        /// Draw a progress bar instead of log lines.
        public var terminal: Bool
        /// An in-process lookup may add its own sources.
        public var registry: [any RegisteredSource.Type]
        /// Paces HTTP requests (tests: a clock that never waits).
        public var clock: PacingClock

        public init(
            catalog: [String] = [], sources: [String] = [], terminal: Bool = false,
            registry: [any RegisteredSource.Type] = MetadataSources.all, clock: PacingClock = .continuous
        ) {
            self.catalog = catalog
            self.sources = sources
            self.terminal = terminal
            self.registry = registry
            self.clock = clock
        }
    }

    public static var description: Stage { .lookup }

    public static func otherInputs(_ job: StageJob<Arguments>, workspace: Workspace) -> [String] {
        job.arguments.catalog
    }

    public static func run(_ job: StageJob<Arguments>, context: StageContext) async throws -> LookupReport {
        try await LookupStage(job: job).run(context: context)
    }
}

extension LookupParameters: StageParameters {
    public static var stage: StageName { .lookup }
    public static let ranges: [String: ConfigLimits.Range] = ranges(for: MetadataSources.all)

    static func ranges(for registry: [any RegisteredSource.Type]) -> [String: ConfigLimits.Range] {
        [
            // The runner-up must be seen.
            "searchLimit": .atLeast(2), "chunkSize": .atLeast(1),
            "match.titleThreshold": .within(0, 1), "match.authorThreshold": .within(0, 1), "match.margin": .within(0, 1),
        ].merging(SourceCacheDays.ranges) { own, _ in own }
            .merging(MetadataSources.ranges(registry)) { own, _ in own }  // each source's own, under its section
    }
}

extension LookupReport: FileStageReport {
    public var rowCount: Int { recordsRead }
}
