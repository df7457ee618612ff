/// The allowed range of every numeric setting in `pipeline.json`, checked when the file is
/// loaded (exit 78 naming the key). `docs/pipeline.schema.json` states the same bounds
/// (`minimum`, `maximum`, `exclusiveMinimum`); a test keeps the two in agreement.
public enum ConfigLimits {
    /// A numeric range: `minimum`/`maximum` inclusive, `exclusiveMinimum` strict.
    public struct Range: Sendable, Equatable {
        public var minimum: Double?
        public var exclusiveMinimum: Double?
        public var maximum: Double?

        public static func atLeast(_ value: Double) -> Range { Range(minimum: value) }
        public static func above(_ value: Double) -> Range { Range(exclusiveMinimum: value) }
        public static func within(_ low: Double, _ high: Double) -> Range { Range(minimum: low, maximum: high) }

        func allows(_ value: Double) -> Bool {
            if let minimum, value < minimum { return false }
            if let exclusiveMinimum, value <= exclusiveMinimum { return false }
            if let maximum, value > maximum { return false }
            return true
        }

        var text: String {
            let low = minimum.map { "≥ \(Self.number($0))" } ?? exclusiveMinimum.map { "> \(Self.number($0))" }
            switch (low, maximum) {
            case (_?, let high?) where minimum != nil: return "a number from \(Self.number(minimum!)) to \(Self.number(high))"
            case (let low?, let high?): return "a number \(low) and ≤ \(Self.number(high))"
            case (let low?, nil): return "a number \(low)"
            case (nil, let high?): return "a number ≤ \(Self.number(high))"
            case (nil, nil): return "a number"
            }
        }

        static func number(_ value: Double) -> String {
            value == value.rounded() ? String(Int(value)) : String(value)
        }
    }

    /// Top-level settings, by key path.
    public static let topLevel: [String: Range] = [
        "notifyTimeoutSeconds": .above(0),
        "beerQueue.maxUpdatesPerHour": .atLeast(0),
        "beerQueue.staleAfterMinutes": .atLeast(1),
        "beerQueue.timeoutSeconds": .above(0),
    ]

    /// Stage parameters, by stage and key path inside `parameters`.
    public static let parameters: [StageName: [String: Range]] = [
        .parse: ["maxRejectedShare": .within(0, 1)],
        .lookup: [
            "cacheDays": .above(0), "negativeCacheDays": .above(0), "searchLimit": .atLeast(2), "chunkSize": .atLeast(1),
            "openLibrary.concurrency": .atLeast(1), "openLibrary.requestsPerSecond": .above(0),
            "openLibrary.batchSize": .within(1, 1000),
            "openLibrary.timeoutSeconds": .above(0), "openLibrary.maxRetries": .atLeast(0),
            "openLibrary.backoffBaseSeconds": .atLeast(0), "openLibrary.backoffMaxSeconds": .atLeast(0),
            "openLibrary.waitBudgetSeconds": .atLeast(0), "openLibrary.breakerThreshold": .atLeast(1),
            "openLibrary.breakerCooldownSeconds": .atLeast(0),
            "openLibrary.maxResponseBytes": .atLeast(1024),
            "match.titleThreshold": .within(0, 1), "match.authorThreshold": .within(0, 1), "match.margin": .within(0, 1),
        ],
        .merge: ["buckets": .within(1, 4096), "libraryLevel": .within(1, 9)],
        .render: [
            "minimumUpdateIntervalSeconds": .atLeast(0), "importStaleAfterMinutes": .atLeast(1),
            "importDismissAfterMinutes": .atLeast(1), "historyLimit": .atLeast(1), "reportMaximumRows": .atLeast(0),
        ],
    ]

    /// Checks every bounded number present in the parsed file.
    public static func check(_ config: JSONValue, path: String) throws {
        for (key, range) in topLevel.sorted(by: { $0.key < $1.key }) {
            try check(config, keyPath: key, range: range, shownAs: key, path: path)
        }
        guard case .array(let stages)? = config["stages"] else { return }
        for (index, stage) in stages.enumerated() {
            guard case .string(let name)? = stage["name"], let stageName = StageName(rawValue: name),
                let parameters = stage["parameters"], let rules = Self.parameters[stageName]
            else { continue }
            for (key, range) in rules.sorted(by: { $0.key < $1.key }) {
                try check(parameters, keyPath: key, range: range, shownAs: "stages[\(index)].parameters.\(key)", path: path)
            }
        }
    }

    static func check(_ root: JSONValue, keyPath: String, range: Range, shownAs: String, path: String) throws {
        var value: JSONValue? = root
        for part in keyPath.split(separator: ".") { value = value?[String(part)] }
        guard case .number(let number)? = value, !range.allows(number) else { return }
        throw ConfigError(path: path, key: shownAs, expected: "expected \(range.text), found \(JSONValue.number(number).kind)")
    }
}
