/// The pipeline's stages, in order; each one's contract is a `Stage`, which its stage type declares (`PipelineStage.description`).
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
