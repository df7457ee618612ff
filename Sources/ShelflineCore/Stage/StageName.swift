/// A stage's name, in the pipeline's order: what `pipeline.json` and the manifests call it. Its
/// contract is its entry in `Stage.pipeline` (ShelflineReports), which lists the stages in this order.
public enum StageName: String, Codable, Sendable, CaseIterable, Comparable {
    case parse, dedupe, lookup, merge, render

    public static func < (lhs: StageName, rhs: StageName) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

extension StageName {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let stage = StageName(rawValue: text) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription:
                    "unknown stage '\(text)', expected one of \(StageName.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self = stage
    }
}
