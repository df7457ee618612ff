/// A stage's name, in pipeline order: the one list of stages. `Stage.pipeline` and `PipelineStages`
/// follow these cases, so the compiler asks for a new case's entry and type.
public enum StageName: String, Codable, Sendable, CaseIterable, Comparable {
    case parse, dedupe, lookup, merge, render

    public static func < (lhs: StageName, rhs: StageName) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
