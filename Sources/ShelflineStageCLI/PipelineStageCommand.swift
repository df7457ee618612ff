import ArgumentParser
import ShelflineCore

/// The command of a pipeline stage's executable: it builds the stage's `StageJob` from its
/// arguments; the shared `execute` checks the files, runs the stage and writes its report.
public protocol PipelineStageCommand: StageCommand {
    associatedtype Runs: PipelineStage
    func job(context: StageContext) throws -> StageJob<Runs.Arguments>
}

extension PipelineStageCommand {
    public static var stage: Stage? { Runs.description }

    public func execute(context: StageContext) async throws {
        let job = try job(context: context)
        let description = Runs.description
        try StageFiles.check(
            inputs: description.inputs.map { job.inputs[$0.role] } + Runs.otherInputs(job, workspace: context.workspace),
            outputs: description.outputs.map { job.outputs[$0.role] } + [job.progress])
        try await Runs.perform(job, context: context)
    }
}

extension NameSpecification {
    /// The option the description gives the file with `role`: `-o`/`--output` for its main output,
    /// else the role in kebab case (`--parse-report`).
    public static func stageFile(_ role: StageFileRole, of description: Stage) -> NameSpecification {
        let files = description.inputs + description.outputs + (description.progress.map { [$0] } ?? [])
        guard let file = files.first(where: { $0.role == role && $0.optionName != nil }), let name = file.optionName else {
            preconditionFailure("stage \(description.name.rawValue) passes no \(role.rawValue) file by option")
        }
        return file.passing == .output ? [.customShort("o"), .customLong(name)] : [.customLong(name)]
    }
}
