import Foundation

/// The names of a run's stage files as `pipeline.json` declares them, found by stage and role:
/// a renamed output is found under its new name by every command that reads it. A stage the
/// config leaves out (or an empty config) has the description's default names.
public struct RunFiles: Sendable, Equatable {
    public var config: PipelineConfig?

    public init(config: PipelineConfig?) {
        self.config = config
    }

    /// The name of `stage`'s output with `role` (an unlisted one, `Stage.unlistedOutputs`, under
    /// the description's name).
    public func output(_ stage: StageName, _ role: StageFileRole) -> String? {
        if let unlisted = stage.stage.unlistedOutputs.first(where: { $0.role == role }) { return unlisted.defaultName }
        return name(role, in: stage.stage.outputs, declared: config?.stages.first { $0.name == stage }?.outputs)
    }

    /// The name of `stage`'s input with `role`.
    public func input(_ stage: StageName, _ role: StageFileRole) -> String? {
        name(role, in: stage.stage.inputs, declared: config?.stages.first { $0.name == stage }?.inputs)
    }

    /// The progress file `stage` rewrites while it runs, if it reports progress.
    public func progress(_ stage: StageName) -> String? {
        stage.stage.progress?.defaultName
    }

    private func name(_ role: StageFileRole, in files: [StageFile], declared: [String]?) -> String? {
        guard let index = files.firstIndex(where: { $0.role == role }) else { return nil }
        guard let declared else { return files[index].defaultName }
        return index < declared.count ? declared[index] : nil
    }
}

extension PipelineConfig {
    /// Decodes the parameters of `T.stage` strictly; errors name the exact key.
    public func parameters<T: StageParameters>(_ type: T.Type, path: String) throws -> T {
        let parameters = try self.parameters(for: T.stage, as: T.self, path: path)
        try parameters.validate(configPath: path)
        return parameters
    }

    /// Canonical JSON of every parameter object `stage` decodes (`Stage.parameterStages`), what
    /// its fingerprint covers. A stage that decodes only its own parameters is fingerprinted on
    /// them as they stand, so manifests written before several stages' parameters were covered
    /// still match; one that decodes several (merge: dedupe's and its own) on an object keyed by
    /// stage name. A stage the config leaves out contributes `{}`, what the stage then decodes.
    public func fingerprintedParameters(_ stage: StageName) -> Data {
        func parameters(_ name: StageName) -> JSONValue {
            stages.first { $0.name == name }?.parameters ?? .object([:])
        }
        let decoded = stage.stage.parameterStages
        if decoded == [stage] { return parameters(stage).canonicalJSON }
        return JSONValue.object(Dictionary(uniqueKeysWithValues: decoded.map { ($0.rawValue, parameters($0)) })).canonicalJSON
    }
}
