import Foundation
import ShelflineCore
import ShelflineReports

/// A decision about one flagged book.
public struct ReviewDecision: Codable, Sendable, Equatable {
    public enum Action: String, Codable, Sendable { case accept, reject }
    public var bookId: String
    public var action: Action
    public var candidate: MatchCandidate?
    /// The import and source line of the listed row.
    public var importId: String
    public var line: Int
}

/// The decisions file: one decision per book, sorted by id; merge applies all on every run, so they survive re-imports.
public struct ReviewDecisions: Codable, Sendable, Equatable {
    public var decisions: [ReviewDecision] = []

    /// A missing file is no decisions.
    public static func load(workspace: Workspace) throws -> ReviewDecisions {
        guard FileManager.default.fileExists(atPath: workspace.decisionsFile) else { return ReviewDecisions() }
        return try readJSONFile(ReviewDecisions.self, from: workspace.decisionsFile)
    }

    public var byBook: [UInt64: ReviewDecision] {
        Dictionary(decisions.compactMap { decision in BookKeys.idBits(decision.bookId).map { ($0, decision) } }) { $1 }
    }

    public mutating func record(_ decision: ReviewDecision) {
        decisions.removeAll { $0.bookId == decision.bookId }
        decisions.append(decision)
        decisions.sort { $0.bookId < $1.bookId }
    }
}

/// `shelfline review`: list a run's flagged rows and record decisions about them.
public struct ReviewDesk {
    public let workspace: Workspace
    public let runDirectory: String
    /// The merge report's name in the run directory (`pipeline.json` may rename it).
    public let mergeReport: String

    public init(workspace: Workspace, runDirectory: String?, mergeReport: String = MergeStage.description.defaultOutput(.report))
    {
        self.workspace = workspace
        self.runDirectory = runDirectory ?? workspace.runsDirectory + "/latest"
        self.mergeReport = mergeReport
    }

    /// `review.json`, or the file merge-report.json names.
    public func reviewList() throws -> ReviewList {
        var path = runDirectory + "/review.json"
        if let report = try? readJSONFile(MergeReport.self, from: runDirectory + "/" + mergeReport) {
            path = report.review.hasPrefix("/") ? report.review : runDirectory + "/" + report.review
        }
        guard FileManager.default.fileExists(atPath: path) else { throw LibraryError.noReviewList(path: path) }
        return try readJSONFile(ReviewList.self, from: path)
    }

    /// `review list`, with the decision recorded for each row's book.
    public func listing() throws -> String {
        let list = try reviewList()
        let decisions = try ReviewDecisions.load(workspace: workspace).byBook
        let settled = list.settled ?? []
        var text =
            list.items.isEmpty
            ? "No rows need review in import \(list.importId).\n"
            : "\(list.items.count) row(s) need review in import \(list.importId):\n"
        func describe(_ item: ReviewItem) {
            let decision = BookKeys.idBits(item.bookId).flatMap { decisions[$0] }
            let state = decision.map { " [\($0.action == .accept ? "accepted \($0.candidate?.key ?? "")" : "rejected")]" } ?? ""
            text += "row \(item.line): \(item.title)\(item.author.map { " — \($0)" } ?? "") (book \(item.bookId))\(state)\n"
            for (index, candidate) in item.candidates.enumerated() {
                let score = String(format: "%.2f", candidate.score)
                text +=
                    "  \(index + 1). \(candidate.key)  \(candidate.title) — \(candidate.authors.joined(separator: ", "))  score \(score)\n"
            }
        }
        list.items.forEach(describe)
        if !settled.isEmpty {
            text += "\(settled.count) row(s) decided (`review accept` or `review reject` changes a decision):\n"
            settled.forEach(describe)
        }
        return text
    }

    /// Records a decision for `row`; `candidate` is a 1-based number or a candidate key (accept only).
    @discardableResult
    public func decide(row: Int, accept candidate: String?) throws -> ReviewDecision {
        let list = try reviewList()
        // A decided row may be decided again: the next merge applies the new decision.
        let rows = list.items + (list.settled ?? [])
        guard let item = rows.first(where: { $0.line == row }) else {
            throw LibraryError.unknownReviewRow(path: runDirectory + "/review.json", row: row, rows: rows.map(\.line).sorted())
        }
        let chosen = try candidate.map { candidate in
            if let number = Int(candidate), number >= 1, number <= item.candidates.count { return item.candidates[number - 1] }
            guard let match = item.candidates.first(where: { $0.key == candidate }) else {
                throw LibraryError.unknownCandidate(row: row, candidate: candidate, count: item.candidates.count)
            }
            return match
        }
        let decision = ReviewDecision(
            bookId: item.bookId, action: chosen == nil ? .reject : .accept, candidate: chosen,
            importId: list.importId, line: row)
        let lock = try MergeLock(workspace: workspace)
        var decisions = try ReviewDecisions.load(workspace: workspace)
        decisions.record(decision)
        try writeJSONFile(decisions, to: workspace.decisionsFile)
        withExtendedLifetime(lock) {}
        return decision
    }
}
