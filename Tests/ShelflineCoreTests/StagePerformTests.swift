import Foundation
import ShelflineCore
import TestSupport
import Testing

/// `PipelineStage.perform`, the one run of every stage: the stage returns its report, `perform`
/// writes it to the job's `report` output, and only then may the stage still fail (`check`).
@Suite struct StagePerformTests {
    struct CountReport: FileStageReport, Equatable {
        var rowsRead: Int
        var rowCount: Int { rowsRead }
    }

    struct NoParameters: StageParameters {
        static var stage: StageName { .dedupe }
    }

    /// A stage that reads its input's lines and refuses more than `limit` once its report is written.
    enum LineCountStage: PipelineStage {
        typealias Parameters = NoParameters
        typealias Report = CountReport
        struct Arguments: Sendable { var limit: Int }

        static let description = Stage(
            name: .dedupe, inputs: [StageFile(.records, .positional, defaultName: "in.txt")],
            outputs: [StageFile(.report, .option, defaultName: "report.json")],
            parameterStages: [.dedupe], algorithmVersion: 1, invocation: .files, activity: Stage.ActivityStep(nil, share: 0))

        static func run(_ job: StageJob<Arguments>, context: StageContext) async throws -> CountReport {
            let text = try String(contentsOfFile: job.input(.records), encoding: .utf8)
            return CountReport(rowsRead: text.split(separator: "\n").count)
        }

        static func check(_ report: CountReport, of job: StageJob<Arguments>, context: StageContext) throws {
            if report.rowsRead > job.arguments.limit {
                throw DataError("\(report.rowsRead) rows, at most \(job.arguments.limit)")
            }
        }
    }

    func job(_ directory: TemporaryDirectory, lines: Int, limit: Int, report: Bool = true) -> StageJob<LineCountStage.Arguments> {
        let input = directory.write("in.txt", String(repeating: "row\n", count: lines))
        return StageJob(
            inputs: [.records: input], outputs: report ? [.report: directory.file("report.json")] : [:],
            arguments: LineCountStage.Arguments(limit: limit))
    }

    @Test func performWritesTheReturnedReportAsTheReportOutput() async throws {
        let directory = TemporaryDirectory("stage-perform")
        let report = try await LineCountStage.perform(
            job(directory, lines: 3, limit: 10), context: StageContext(config: PipelineConfig(stages: [])))
        #expect(report.rowsRead == 3)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: directory.file("report.json")))
        #expect(try JSONDecoder().decode(CountReport.self, from: bytes) == report)
        #expect(bytes == (try JSONEncoder.shelflinePretty.encode(report)) + Data("\n".utf8), "pretty JSON, one trailing newline")
    }

    @Test func aCheckThatFailsStillLeavesTheReportWritten() async throws {
        let directory = TemporaryDirectory("stage-perform")
        await #expect(throws: DataError.self) {
            try await LineCountStage.perform(
                job(directory, lines: 5, limit: 2), context: StageContext(config: PipelineConfig(stages: [])))
        }
        #expect(try readJSONFile(CountReport.self, from: directory.file("report.json")).rowsRead == 5)
    }

    @Test func aReportThatCannotBeWrittenFailsBeforeTheStageRuns() async throws {
        let directory = TemporaryDirectory("stage-perform")
        var job = job(directory, lines: 2, limit: 10)
        job.outputs[.report] = directory.file("missing/report.json")
        try FileManager.default.removeItem(atPath: job.input(.records))
        // Had the stage run, its missing input would be the error.
        let error = await #expect(throws: FileError.self) {
            try await LineCountStage.perform(job, context: StageContext(config: PipelineConfig(stages: [])))
        }
        #expect(error?.exitStatus == .cannotCreate, "\(String(describing: error))")
    }

    @Test func aJobWithoutAReportOutputWritesNoFile() async throws {
        let directory = TemporaryDirectory("stage-perform")
        let report = try await LineCountStage.perform(
            job(directory, lines: 2, limit: 10, report: false),
            context: StageContext(config: PipelineConfig(stages: [])))
        #expect(report.rowsRead == 2)
        #expect(!FileManager.default.fileExists(atPath: directory.file("report.json")))
    }
}
