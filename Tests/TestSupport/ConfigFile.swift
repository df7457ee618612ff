import Foundation

/// `pipeline.json` as a test edits it: read as a JSON object, changed, written to a new file.
public struct ConfigFile {
    public var object: [String: Any]

    /// Reads `path` (a `pipeline.json`).
    public init(contentsOf path: String) throws {
        object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any] ?? [:]
    }

    /// The shipped example's config (catalog only, offline), its catalog paths made absolute so
    /// that the edited copy can be written anywhere.
    public static func shippedExample() throws -> ConfigFile {
        let examples = ExecutableRunner.repositoryRoot + "/examples"
        var config = try ConfigFile(contentsOf: examples + "/pipeline.json")
        config.editParameters(of: "lookup") { parameters in
            parameters["catalog"] = (parameters["catalog"] as? [String] ?? []).map { examples + "/" + $0 }
        }
        return config
    }

    /// The declaration of stage `name` (nil when the config leaves it out).
    public subscript(stage name: String) -> [String: Any]? {
        get { (object["stages"] as? [[String: Any]])?.first { $0["name"] as? String == name } }
        set {
            var stages = object["stages"] as? [[String: Any]] ?? []
            guard let index = stages.firstIndex(where: { $0["name"] as? String == name }) else { return }
            if let newValue { stages[index] = newValue } else { stages.remove(at: index) }
            object["stages"] = stages
        }
    }

    /// Changes stage `name`'s `parameters` object.
    public mutating func editParameters(of name: String, _ change: (inout [String: Any]) -> Void) {
        guard var stage = self[stage: name] else { return }
        var parameters = stage["parameters"] as? [String: Any] ?? [:]
        change(&parameters)
        stage["parameters"] = parameters
        self[stage: name] = stage
    }

    /// Renames a stage file everywhere the config names it (an output and the inputs that read it).
    public mutating func rename(_ file: String, to newName: String) {
        var stages = object["stages"] as? [[String: Any]] ?? []
        for index in stages.indices {
            for key in ["inputs", "outputs"] {
                if let names = stages[index][key] as? [String] {
                    stages[index][key] = names.map { $0 == file ? newName : $0 }
                }
            }
        }
        object["stages"] = stages
    }

    /// Reads `path`, applies `change` and writes the result back.
    public static func edit(_ path: String, _ change: (inout ConfigFile) throws -> Void) throws {
        var config = try ConfigFile(contentsOf: path)
        try change(&config)
        try config.write(to: path)
    }

    /// Writes the config to `path` and returns `path`.
    @discardableResult
    public func write(to path: String) throws -> String {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
        return path
    }
}
