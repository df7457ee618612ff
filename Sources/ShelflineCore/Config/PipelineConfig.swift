import Foundation

/// One stage as `pipeline.json` declares it: files relative to the run directory (`{csv}`,
/// `{library}` for those outside it) and parameters, which its stage decodes into its own type.
public struct StageDeclaration: Codable, Sendable, Equatable {
    public var name: StageName
    public var inputs: [String]
    public var outputs: [String]
    public var parameters: JSONValue = .object([:])
}

/// `pipeline.json`: the stages in order and the settings they share.
public struct PipelineConfig: Codable, Sendable, Equatable {
    /// Used when neither `--workspace` nor `SHELFLINE_WORKSPACE` is given.
    public var workspace: String?
    public var stages: [StageDeclaration]
    /// Kept as JSON, as `apns` is: the module that owns it decodes it, so Core holds no stage's types.
    public var beerQueue: JSONValue?
    /// Argv run when an import finishes, fails, pauses or leaves rows to review; the event as JSON on stdin.
    public var notify: [String]?
    /// Seconds `notify` may run before it is killed (default 30).
    public var notifyTimeoutSeconds: Double?
    /// Minutes an inbox waits before importing again a file whose import left rows no source could
    /// answer (default 60; 0: every run).
    public var askAgainAfterMinutes: Double?
    /// Live Activity delivery through APNs (`shelfline-push`); nil: no pushes are sent.
    public var apns: JSONValue?

    public init(workspace: String? = nil, stages: [StageDeclaration], beerQueue: JSONValue? = nil, notify: [String]? = nil) {
        self.workspace = workspace
        self.stages = stages
        self.beerQueue = beerQueue
        self.notify = notify
    }

    /// The configuration when no `pipeline.json` is given: each stage with its default file names
    /// and parameters (`{}`: lookup then asks Open Library alone), plus those the environment sets.
    public static func builtInDefault(stages: [Stage], environment: [String: String]) -> PipelineConfig {
        PipelineConfig(
            stages: stages.map { stage in
                var parameters = JSONValue.object([:])
                for override in stage.environmentParameters {
                    if let value = environment[override.variable] {
                        parameters = parameters.setting(override.keyPath, to: .string(value))
                    }
                }
                return StageDeclaration(
                    name: stage.name, inputs: stage.inputs.map(\.defaultName),
                    outputs: stage.outputs.map(\.defaultName), parameters: parameters)
            })
    }

    public func declaration(_ stage: StageName, path: String = "pipeline.json") throws -> StageDeclaration {
        guard let declaration = stages.first(where: { $0.name == stage }) else {
            throw ConfigError(path: path, key: "stages", expected: "a stage named '\(stage.rawValue)'")
        }
        return declaration
    }

    /// Decodes `stage`'s parameters strictly, errors naming the key; a `StageParameters` type's
    /// ranges (or `ranges`) are checked first.
    public func parameters<T: Decodable>(
        for stage: StageName, as type: T.Type, path: String = "pipeline.json", ranges: [String: ConfigLimits.Range]? = nil,
        userInfo: [CodingUserInfoKey: Any] = [:]
    ) throws -> T {
        guard let index = stages.firstIndex(where: { $0.name == stage }) else {
            return try Self.decode(
                T.self, from: .object([:]), path: path, keyPrefix: "stages[\(stage.rawValue)].parameters", userInfo: userInfo)
        }
        let keyPrefix = "stages[\(index)].parameters"
        if let ranges = ranges ?? (T.self as? any StageParameters.Type)?.ranges {
            try ConfigLimits.check(stages[index].parameters, ranges: ranges, keyPrefix: keyPrefix, path: path)
        }
        return try Self.decode(T.self, from: stages[index].parameters, path: path, keyPrefix: keyPrefix, userInfo: userInfo)
    }

    /// Every problem is a `ConfigError` (78) naming the key.
    public static func load(path: String) throws -> PipelineConfig {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(path: path, key: "(file)", expected: "a readable JSON file")
        }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch let error as DecodingError {
            throw configError(error, path: path, keyPrefix: nil)
        }
        guard case .object = value else { throw ConfigError(path: path, key: "(top level)", expected: "expected an object") }
        try ConfigLimits.check(value, ranges: ConfigLimits.topLevel, keyPrefix: nil, path: path)
        let config = try decode(PipelineConfig.self, from: value, path: path, keyPrefix: nil)
        try config.validate(path: path)
        return config
    }

    /// For the orchestrator, which runs every stage: each input is a `{…}` placeholder or an output
    /// of an earlier stage; a stage left out is a config error naming the input with no producer.
    public func validateWiring(path: String) throws {
        var produced: Set<String> = []
        for (index, stage) in stages.enumerated() {
            for (position, input) in stage.inputs.enumerated() where !input.hasPrefix("{") && !produced.contains(input) {
                let missing = StageName.allCases.filter { name in !stages.contains { $0.name == name } }.map(\.rawValue)
                let hint = missing.isEmpty ? "" : "; stage(s) \(missing.joined(separator: ", ")) are missing from the list"
                throw ConfigError(
                    path: path, key: "stages[\(index)].inputs[\(position)]",
                    expected: "'\(input)' is not an output of an earlier stage\(hint)")
            }
            produced.formUnion(stage.outputs)
        }
        if stages.isEmpty {
            throw ConfigError(
                path: path, key: "stages",
                expected: "the stages to run (\(StageName.allCases.map(\.rawValue).joined(separator: ", "))); none are declared")
        }
    }

    func validate(path: String) throws {
        var seen: [StageName] = []
        for (index, stage) in stages.enumerated() {
            if seen.contains(stage.name) {
                throw ConfigError(
                    path: path, key: "stages[\(index)].name", expected: "each stage once; '\(stage.name.rawValue)' repeats")
            }
            if let last = seen.last, stage.name < last {
                throw ConfigError(
                    path: path, key: "stages[\(index)].name",
                    expected: "stages in order \(StageName.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard case .object = stage.parameters else {
                throw ConfigError(path: path, key: "stages[\(index)].parameters", expected: "an object")
            }
            seen.append(stage.name)
        }
    }

    /// Decodes a top-level section a module owns (`beerQueue`, `apns`) strictly; nil when absent.
    public static func section<T: Decodable>(_ type: T.Type, _ value: JSONValue?, key: String, path: String) throws -> T? {
        guard let value else { return nil }
        return try decode(type, from: value, path: path, keyPrefix: key)
    }

    /// Decodes strictly (`ConfigDecoder`); every failure is a `ConfigError` naming the key.
    public static func decode<T: Decodable>(
        _ type: T.Type, from value: JSONValue, path: String, keyPrefix: String?, userInfo: [CodingUserInfoKey: Any] = [:]
    ) throws -> T {
        do {
            return try ConfigDecoder(userInfo: userInfo).decode(T.self, from: value)
        } catch let error as DecodingError {
            throw configError(error, path: path, keyPrefix: keyPrefix)
        } catch let unknown as ConfigDecoder.UnknownKey {
            let advice =
                unknown.suggestion.map { "did you mean '\($0)'?" }
                ?? (unknown.known.isEmpty ? "no keys are allowed here" : "known keys: \(unknown.known.joined(separator: ", "))")
            throw ConfigError(path: path, key: key(unknown.keyPath, prefix: keyPrefix), expected: "unknown key; \(advice)")
        }
    }

    /// `prefix.a.b[0]`; neither: the top level.
    static func key(_ keyPath: String, prefix: String?) -> String {
        let parts = [prefix, keyPath.isEmpty ? nil : keyPath].compactMap { $0 }
        return parts.isEmpty ? "(top level)" : parts.joined(separator: ".")
    }

    static func configError(_ error: DecodingError, path: String, keyPrefix: String?) -> ConfigError {
        func at(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            Self.key((codingPath + (last.map { [$0] } ?? [])).keyPath, prefix: keyPrefix)
        }
        let (key, expected): (String, String) =
            switch error {
            case .keyNotFound(let missing, let context): (at(context.codingPath, missing), "required but missing")
            case .typeMismatch(_, let context) where context.debugDescription.hasPrefix("expected "):
                (at(context.codingPath), context.debugDescription)
            case .typeMismatch(let type, let context): (at(context.codingPath), "expected \(describe(type))")
            case .valueNotFound(let type, let context): (at(context.codingPath), "expected \(describe(type)), found null")
            case .dataCorrupted(let context) where context.codingPath.isEmpty:
                ("(file)", "valid JSON (\(context.debugDescription))")
            case .dataCorrupted(let context): (at(context.codingPath), context.debugDescription)
            @unknown default: ("(file)", "\(error)")
            }
        return ConfigError(path: path, key: key, expected: expected)
    }

    static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Double.Type, is Int32.Type: "a number"
        case is Bool.Type: "true or false"
        default:
            String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}
