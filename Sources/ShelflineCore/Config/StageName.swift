/// The pipeline's stages, in order. The one list the orchestrator, config decoder and docs use.
public enum StageName: String, Codable, Sendable, CaseIterable, Comparable {
    case parse, dedupe, lookup, merge, render

    /// The executable that runs this stage.
    public var executable: String { "shelfline-\(rawValue)" }

    /// Bumped whenever a stage's output for the same input and parameters may change, so the
    /// orchestrator reruns it (part of every stage fingerprint).
    public var algorithmVersion: Int {
        switch self {
        case .parse: 1
        case .dedupe: 1
        case .lookup: 1
        case .merge: 1
        case .render: 1
        }
    }

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
                debugDescription: "unknown stage '\(text)', expected one of \(StageName.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self = stage
    }
}
