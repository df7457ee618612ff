import Foundation

/// A run's stage files by stage and role, under the names `pipeline.json` declares (so a renamed
/// output is found by every reader); a stage the config leaves out has its default names.
public struct RunFiles: Sendable, Equatable {
    public var config: PipelineConfig?
    /// The stages whose files are looked up; one not listed has no files.
    public var stages: [Stage]

    public init(config: PipelineConfig?, stages: [Stage]) {
        self.config = config
        self.stages = stages
    }

    /// An unlisted output (`Stage.unlistedOutputs`) is under its default name.
    public func output(_ stage: StageName, _ role: StageFileRole) -> String? {
        guard let description = stages.named(stage) else { return nil }
        if let unlisted = description.unlistedOutputs.first(where: { $0.role == role }) { return unlisted.defaultName }
        return name(role, in: description.outputs, declared: config?.stages.first { $0.name == stage }?.outputs)
    }

    public func input(_ stage: StageName, _ role: StageFileRole) -> String? {
        guard let description = stages.named(stage) else { return nil }
        return name(role, in: description.inputs, declared: config?.stages.first { $0.name == stage }?.inputs)
    }

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
    /// Decodes the parameters of `T.stage` strictly and validates them.
    public func parameters<T: StageParameters>(
        _ type: T.Type, path: String, userInfo: [CodingUserInfoKey: Any] = [:]
    ) throws -> T {
        let parameters = try self.parameters(for: T.stage, as: T.self, path: path, userInfo: userInfo)
        try parameters.validate(configPath: path)
        return parameters
    }

    /// Canonical JSON of every parameter object `stage` decodes: what its fingerprint covers. Its own
    /// alone as they stand, so older manifests still match; several (merge) keyed by stage name. A
    /// stage the config leaves out contributes `{}`, what the stage then decodes.
    public func fingerprintedParameters(_ stage: Stage) -> Data {
        func parameters(_ name: StageName) -> JSONValue {
            stages.first { $0.name == name }?.parameters ?? .object([:])
        }
        let decoded = stage.parameterStages
        if decoded == [stage.name] { return parameters(stage.name).canonicalJSON }
        return JSONValue.object(Dictionary(uniqueKeysWithValues: decoded.map { ($0.rawValue, parameters($0)) })).canonicalJSON
    }
}
