import Foundation

/// One pipeline stage as a type: its description, parameter and report types, and one entry, `run`.
/// The executables run it through one generic command (`PipelineStageCommand`), and the orchestrator
/// validates `Parameters` and reads `Report`'s row count through it.
public protocol PipelineStage {
    associatedtype Parameters: StageParameters
    /// `perform` writes it as the stage's `report` output (every stage but render).
    associatedtype Report: StageReport
    /// What the executable takes besides its files (`--format`, `--catalog`, `--import-id`).
    associatedtype Arguments: Sendable = NoStageArguments

    /// The stage's entry in the pipeline's stage list (`Stage.pipeline`, in ShelflineReports).
    static var description: Stage { get }

    /// Files the stage reads besides `job`'s, for the `StageFiles` check. Default: its unlisted
    /// workspace inputs (the library).
    static func otherInputs(_ job: StageJob<Arguments>, workspace: Workspace) -> [String]

    /// Decodes its parameters from `context`, writes its outputs and returns its report.
    static func run(_ job: StageJob<Arguments>, context: StageContext) async throws -> Report

    /// What may still fail once the outputs and report are written (parse's rejected share above
    /// its threshold: 65, the report saying how many). Default: nothing.
    static func check(_ report: Report, of job: StageJob<Arguments>, context: StageContext) throws
}

extension PipelineStage {
    public static var name: StageName { description.name }

    public static func otherInputs(_ job: StageJob<Arguments>, workspace: Workspace) -> [String] {
        description.unlistedInputs.compactMap { workspace.file(named: $0.defaultName) }
    }

    public static func check(_ report: Report, of job: StageJob<Arguments>, context: StageContext) throws {}

    /// `run`, the report written atomically to the job's `report` output if any, then `check`. The
    /// report's temporary file is created first, so one that cannot be written (73) fails the
    /// stage before it publishes any output.
    @discardableResult
    public static func perform(_ job: StageJob<Arguments>, context: StageContext) async throws -> Report {
        let reportFile = try job.outputs[.report].map { try AtomicFile(path: $0) }
        let report: Report
        do {
            report = try await run(job, context: context)
            if let reportFile {
                guard let file = report as? any FileStageReport else {
                    preconditionFailure("stage \(name.rawValue) was given a report file but its report is not a FileStageReport")
                }
                var data = try JSONEncoder.shelflinePretty.encode(file)
                data.append(UInt8(ascii: "\n"))
                try reportFile.write(Array(data))
                try reportFile.commit()
            }
        } catch {
            reportFile?.abandon()
            throw error
        }
        try check(report, of: job, context: context)
        return report
    }

    /// The type the orchestrator decodes the report file with; nil when there is none (render).
    public static var reportFile: (any FileStageReport.Type)? {
        description.outputs.contains { $0.role == .report } ? Report.self as? any FileStageReport.Type : nil
    }
}

/// A stage that takes nothing besides its files.
public struct NoStageArguments: Sendable {}

/// One run of a stage: its files by role and the stage's own arguments.
public struct StageJob<Arguments: Sendable>: Sendable {
    public var inputs: [StageFileRole: String]
    public var outputs: [StageFileRole: String]
    /// The progress file to keep rewritten while running, if asked for.
    public var progress: String?
    public var arguments: Arguments

    public init(
        inputs: [StageFileRole: String] = [:], outputs: [StageFileRole: String] = [:], progress: String? = nil,
        arguments: Arguments
    ) {
        self.inputs = inputs
        self.outputs = outputs
        self.progress = progress
        self.arguments = arguments
    }

    /// The input with `role`; asking for one the command does not give is a programming error.
    public func input(_ role: StageFileRole) -> String {
        guard let path = inputs[role] else { preconditionFailure("no \(role.rawValue) input given") }
        return path
    }

    public func output(_ role: StageFileRole) -> String {
        guard let path = outputs[role] else { preconditionFailure("no \(role.rawValue) output given") }
        return path
    }
}

extension StageJob where Arguments == NoStageArguments {
    public init(inputs: [StageFileRole: String] = [:], outputs: [StageFileRole: String] = [:], progress: String? = nil) {
        self.init(inputs: inputs, outputs: outputs, progress: progress, arguments: NoStageArguments())
    }
}
