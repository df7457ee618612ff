import ShelflineCore

/// One row of `review.json`: imported from the export's own data, with several plausible editions.
public struct ReviewItem: Codable, Sendable, Equatable {
    /// The `ROW` of `review accept|reject`.
    public var line: Int
    public var bookId: String
    public var title: String
    public var author: String?
    public var isbn13: String?
    /// Best first; `review accept ROW N` takes the N-th (1-based).
    public var candidates: [MatchCandidate]

    public init(line: Int, bookId: String, title: String, author: String?, isbn13: String?, candidates: [MatchCandidate]) {
        self.line = line
        self.bookId = bookId
        self.title = title
        self.author = author
        self.isbn13 = isbn13
        self.candidates = candidates
    }
}

/// `review.json`: the rows of one import that need a decision.
public struct ReviewList: Codable, Sendable, Equatable {
    public var importId: String
    public var items: [ReviewItem]
    /// Rows whose every candidate the title rule ruled out: nothing to decide, listed so nothing is
    /// hidden. Absent when none.
    public var ruledOut: [ReviewItem]?
    /// Rows already decided (`decisions.json`), listed so the decision can still be changed.
    public var settled: [ReviewItem]?

    public init(importId: String, items: [ReviewItem], ruledOut: [ReviewItem] = [], settled: [ReviewItem] = []) {
        self.importId = importId
        self.items = items
        self.ruledOut = ruledOut.isEmpty ? nil : ruledOut
        self.settled = settled.isEmpty ? nil : settled
    }
}
