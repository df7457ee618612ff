/// The allowed ranges of numeric settings (78 naming the key): the top-level ones here, a stage's
/// on its parameter type, a section's on the type that decodes it. `docs/pipeline.schema.json`
/// states the same bounds; tests keep the two equal.
public enum ConfigLimits {
    /// `minimum`/`maximum` inclusive, `exclusiveMinimum` strict.
    public struct Range: Sendable, Equatable {
        public var minimum: Double?
        public var exclusiveMinimum: Double?
        public var maximum: Double?

        public init(minimum: Double? = nil, exclusiveMinimum: Double? = nil, maximum: Double? = nil) {
            self.minimum = minimum
            self.exclusiveMinimum = exclusiveMinimum
            self.maximum = maximum
        }

        public static func atLeast(_ value: Double) -> Range { Range(minimum: value) }
        public static func within(_ low: Double, _ high: Double) -> Range { Range(minimum: low, maximum: high) }

        public func allows(_ value: Double) -> Bool {
            if let minimum, value < minimum { return false }
            if let exclusiveMinimum, value <= exclusiveMinimum { return false }
            if let maximum, value > maximum { return false }
            return true
        }

        public var text: String {
            func number(_ value: Double) -> String { JSONValue.number(value).text }
            let low = minimum.map { "≥ \(number($0))" } ?? exclusiveMinimum.map { "> \(number($0))" }
            switch (low, maximum) {
            case (_?, let high?) where minimum != nil: return "a number from \(number(minimum!)) to \(number(high))"
            case (let low?, let high?): return "a number \(low) and ≤ \(number(high))"
            case (let low?, nil): return "a number \(low)"
            case (nil, let high?): return "a number ≤ \(number(high))"
            case (nil, nil): return "a number"
            }
        }
    }

    public static let topLevel: [String: Range] = [
        "notifyTimeoutSeconds": Range(exclusiveMinimum: 0, maximum: 86_400),
        "askAgainAfterMinutes": Range(minimum: 0, maximum: 525_600),
    ]

    /// Checks every number of `object` bounded by `ranges` (key paths inside it).
    public static func check(_ object: JSONValue, ranges: [String: Range], keyPrefix: String?, path: String) throws {
        for (key, range) in ranges.sorted(by: { $0.key < $1.key }) {
            var value: JSONValue? = object
            for part in key.split(separator: ".") { value = value?[String(part)] }
            guard case .number(let number)? = value, !range.allows(number) else { continue }
            throw ConfigError(
                path: path, key: keyPrefix.map { "\($0).\(key)" } ?? key,
                expected: "expected \(range.text), found \(JSONValue.number(number).kind)")
        }
    }
}
