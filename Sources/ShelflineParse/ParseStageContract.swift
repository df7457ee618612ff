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
        let parse = Job(
            input: job.input(.export), output: job.output(.records), rejects: job.outputs[.rejects],
            report: job.outputs[.report], arguments: job.arguments, parameters: try job.arguments.parameters(context))
        return try ParseStage(job: parse, log: context.log, cancellation: context.cancellation).run()
    }

    /// Runs once everything, the report included, is written.
    public static func check(_ report: ParseReport, of job: StageJob<Arguments>, context: StageContext) throws {
        try rejectedShare(report, parameters: try job.arguments.parameters(context), rejects: job.outputs[.rejects])
    }

    /// `ParseError.tooManyRejected` when `report` rejected too many rows.
    public static func rejectedShare(_ report: ParseReport, parameters: ParseParameters, rejects: String?) throws {
        if parameters.tooManyRejected(report.rowsRejected, of: report.rowsRead) {
            throw ParseError.tooManyRejected(
                path: report.input, rejected: report.rowsRejected, read: report.rowsRead,
                threshold: parameters.maxRejectedShare, rejects: rejects)
        }
    }
}

extension ParseParameters: StageParameters {
    public static var stage: StageName { .parse }
    public static let ranges: [String: ConfigLimits.Range] = ["maxRejectedShare": .within(0, 1), "minRejectedRows": .atLeast(0)]
}
