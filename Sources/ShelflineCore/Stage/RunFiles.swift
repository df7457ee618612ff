import Foundation

/// The names of a run's stage files as `pipeline.json` declares them, found by stage and role:
/// a renamed output is found under its new name by every command that reads it. A stage the
/// config leaves out (or an empty config) has its description's default names; a stage `stages`
/// does not describe has no files.
public struct RunFiles: Sendable, Equatable {
    public var config: PipelineConfig?
    /// The descriptions of the stages whose files are looked up (the pipeline's, from the commands
    /// layer; render's executable gives those of every stage whose files it reads).
    public var stages: [Stage]

    public init(config: PipelineConfig?, stages: [Stage]) {
        self.config = config
        self.stages = stages
    }

    /// The name of `stage`'s output with `role` (an unlisted one, `Stage.unlistedOutputs`, under
    /// the description's name).
    public func output(_ stage: StageName, _ role: StageFileRole) -> String? {
        guard let description = stages.named(stage) else { return nil }
        if let unlisted = description.unlistedOutputs.first(where: { $0.role == role }) { return unlisted.defaultName }
        return name(role, in: description.outputs, declared: config?.stages.first { $0.name == stage }?.outputs)
    }

    /// The name of `stage`'s input with `role`.
    public func input(_ stage: StageName, _ role: StageFileRole) -> String? {
        guard let description = stages.named(stage) else { return nil }
        return name(role, in: description.inputs, declared: config?.stages.first { $0.name == stage }?.inputs)
    }

    /// The progress file `stage` rewrites while it runs, if it reports progress.
    public func progress(_ stage: StageName) -> String? {
        stages.named(stage)?.progress?.defaultName
    }

    private func name(_ role: StageFileRole, in files: [StageFile], declared: [String]?) -> String? {
        guard let index = files.firstIndex(where: { $0.role == role }) else { return nil }
        guard let declared else { return files[index].defaultName }
        return index < declared.count ? declared[index] : nil
    }
}

extension PipelineConfig {
    /// Decodes the parameters of `T.stage` strictly; errors name the exact key. `userInfo` is the decoder's.
    public func parameters<T: StageParameters>(
        _ type: T.Type, path: String, userInfo: [CodingUserInfoKey: Any] = [:]
    ) throws -> T {
        let parameters = try self.parameters(for: T.stage, as: T.self, path: path, userInfo: userInfo)
        try parameters.validate(configPath: path)
        return parameters
    }

    /// Canonical JSON of every parameter object `stage` decodes (`Stage.parameterStages`), what
    /// its fingerprint covers. A stage that decodes only its own parameters is fingerprinted on
    /// them as they stand, so manifests written before several stages' parameters were covered
    /// still match; one that decodes several (merge: dedupe's and its own) on an object keyed by
    /// stage name. A stage the config leaves out contributes `{}`, what the stage then decodes.
    public func fingerprintedParameters(_ stage: Stage) -> Data {
        func parameters(_ name: StageName) -> JSONValue {
            stages.first { $0.name == name }?.parameters ?? .object([:])
        }
        let decoded = stage.parameterStages
        if decoded == [stage.name] { return parameters(stage.name).canonicalJSON }
        return JSONValue.object(Dictionary(uniqueKeysWithValues: decoded.map { ($0.rawValue, parameters($0)) })).canonicalJSON
    }
}
