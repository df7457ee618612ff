import Foundation
import ShelflineCore

/// The numeric bounds `docs/pipeline.schema.json` states, compared with a parameter type's
/// `ranges` (`StageParameters.ranges`), where each range is declared once.
public enum PipelineSchemaRanges {
    /// Every disagreement between `ranges` and the bounds of `$defs.<stage>Parameters`, both ways:
    /// a range the schema states differently or not at all, a schema bound the type does not declare.
    public static func mismatches(stage: StageName, ranges: [String: ConfigLimits.Range]) throws -> [String] {
        let name = "\(stage.rawValue)Parameters"
        guard let definition = (try schema()["$defs"] as? [String: Any])?[name] as? [String: Any] else {
            return ["no $defs.\(name)"]
        }
        return mismatches(name, definition, ranges)
    }

    /// Every disagreement between `ranges` and the bounds of the top-level object `key` (`beerQueue`).
    public static func mismatches(section key: String, ranges: [String: ConfigLimits.Range]) throws -> [String] {
        guard let definition = (try schema()["properties"] as? [String: Any])?[key] as? [String: Any] else {
            return ["no properties.\(key)"]
        }
        return mismatches(key, definition, ranges)
    }

    static func schema() throws -> [String: Any] {
        let path = ExecutableRunner.repositoryRoot + "/docs/pipeline.schema.json"
        return try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any] ?? [:]
    }

    static func mismatches(_ name: String, _ definition: [String: Any], _ ranges: [String: ConfigLimits.Range]) -> [String] {
        let stated = bounds(definition, at: nil)
        var found: [String] = []
        for (key, range) in ranges.sorted(by: { $0.key < $1.key }) where stated[key] != range {
            found.append("\(name).\(key): the type says \(range), the schema \(stated[key].map { "\($0)" } ?? "nothing")")
        }
        for key in stated.keys.sorted() where ranges[key] == nil {
            found.append("\(name).\(key): bounded by the schema only")
        }
        return found
    }

    /// `mismatches` of `stage`'s parameter type.
    public static func mismatches<Stage: PipelineStage>(of stage: Stage.Type) throws -> [String] {
        try mismatches(stage: Stage.name, ranges: Stage.Parameters.ranges)
    }

    /// The bounds of every property under `node`, by dotted key path.
    public static func bounds(_ node: [String: Any], at prefix: String?) -> [String: ConfigLimits.Range] {
        var found: [String: ConfigLimits.Range] = [:]
        for (key, value) in node["properties"] as? [String: Any] ?? [:] {
            guard let property = value as? [String: Any] else { continue }
            let path = prefix.map { "\($0).\(key)" } ?? key
            let range = ConfigLimits.Range(
                minimum: property["minimum"] as? Double,
                exclusiveMinimum: property["exclusiveMinimum"] as? Double,
                maximum: property["maximum"] as? Double)
            if range != ConfigLimits.Range() { found[path] = range }
            found.merge(bounds(property, at: path)) { first, _ in first }
        }
        return found
    }
}
