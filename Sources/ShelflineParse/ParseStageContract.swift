import ShelflineCore
import ShelflineReports

extension ParseStage: PipelineStage {
    public typealias Parameters = ParseParameters
    public typealias Report = ParseReport

    /// What `shelfline-parse` takes besides its files.
    public struct Arguments: Sendable {
        public var format: FormatChoice?
        public var noHeader: Bool?
        public var columns: GenericMapping?
        /// The formats detection tries, in order, and `format` may name; an in-process parse may add its own.
        var formats: [any ImportFormat] = ImportFormats.all
        /// Lowered only by tests and the fuzz targets, to reach oversized rows with small inputs.
        var maxRowBytes = DelimitedReader.defaultMaxRowBytes

        public init(format: FormatChoice? = nil, noHeader: Bool? = nil, columns: GenericMapping? = nil) {
            self.format = format
            self.noHeader = noHeader
            self.columns = columns
        }

        func parameters(_ context: StageContext) throws -> ParseParameters {
            try context.parameters(ParseParameters.self, userInfo: [.importFormats: formats])
        }
    }

    public static var description: Stage { .parse }

    public static func run(_ job: StageJob<Arguments>, context: StageContext) async throws -> ParseReport {
        let parameters = try job.arguments.parameters(context)
        return try ParseStage(job: job, parameters: parameters, log: context.log, cancellation: context.cancellation).run()
    }

    /// Runs once everything, the report included, is written.
    public static func check(_ report: ParseReport, of job: StageJob<Arguments>, context: StageContext) throws {
        try rejectedShare(report, parameters: try job.arguments.parameters(context), rejects: job.outputs[.rejects])
    }

    /// A `DataError` when `report` rejected too many rows; the outputs are written then.
    public static func rejectedShare(_ report: ParseReport, parameters: ParseParameters, rejects: String?) throws {
        let (rejected, read) = (report.rowsRejected, report.rowsRead)
        guard parameters.tooManyRejected(rejected, of: read) else { return }
        let percent = (Double(rejected) / Double(read) * 1000).rounded() / 10
        throw DataError(
            "\(report.input): \(rejected) of \(read) rows rejected (\(percent)%), more than maxRejectedShare "
                + "\(parameters.maxRejectedShare)" + (rejects.map { "; see \($0)" } ?? "; rerun with --rejects FILE to see them"))
    }
}

extension ParseParameters: StageParameters {
    public static var stage: StageName { .parse }
    public static let ranges: [String: ConfigLimits.Range] = ["maxRejectedShare": .within(0, 1), "minRejectedRows": .atLeast(0)]
}
