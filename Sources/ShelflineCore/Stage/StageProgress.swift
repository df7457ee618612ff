/// A long stage's progress, rewritten at least every 2 s while it runs (orchestrator and render read it).
public struct StageProgress: Codable, Sendable, Equatable {
    public var stage: String
    public var processed: Int
    public var total: Int
    public var counts: [String: Int]
    public var currentTitle: String?
    public var currentAuthor: String?
    /// Unix seconds.
    public var startedAt: Double
    public var updatedAt: Double
    public var finished: Bool

    public init(
        stage: String, processed: Int, total: Int, counts: [String: Int] = [:], currentTitle: String? = nil,
        currentAuthor: String? = nil, startedAt: Double, updatedAt: Double, finished: Bool = false
    ) {
        self.stage = stage
        self.processed = processed
        self.total = total
        self.counts = counts
        self.currentTitle = currentTitle
        self.currentAuthor = currentAuthor
        self.startedAt = startedAt
        self.updatedAt = updatedAt
        self.finished = finished
    }

    /// Rows per second so far; nil before there is a rate.
    public var rate: Double? {
        let elapsed = updatedAt - startedAt
        return elapsed > 0 && processed > 0 ? Double(processed) / elapsed : nil
    }
}
