import Foundation
import ShelflineCommands
import ShelflineCore
import ShelflineReports
import TestSupport

/// Builders for run directories shared by the render tests.
enum Fixtures {
    static func parseReport(rowsRead: Int, rejected: Int, input: String = "goodreads_library_export.csv") -> ParseReport {
        ParseReport(
            input: input, format: .goodreads, delimiter: ",", header: ["Book Id", "Title"], headerByteOffset: 0,
            headerByteLength: 13, rowsRead: rowsRead, rowsWritten: rowsRead - rejected, rowsRejected: rejected,
            fieldsRepaired: 0)
    }

    static func mergeReport(
        added: Int, updated: Int, duplicates: Int, rejected: Int, needsReview: Int, notEnriched: Int,
        matchedByIsbn: Int
    ) -> MergeReport {
        var outcomes = ImportOutcomes()
        outcomes.added = added
        outcomes.updated = updated
        outcomes.duplicateInFile = duplicates
        outcomes.rejected = rejected
        var enrichment = EnrichmentCounts()
        enrichment.needsReview = needsReview
        enrichment.notEnriched = notEnriched
        enrichment.matchedByIsbn = matchedByIsbn
        return MergeReport(
            importId: "imp-1", rowsRead: outcomes.total, outcomes: outcomes, enrichment: enrichment,
            libraryBooks: added + 40, ledger: "ledger.ndjson.gz", review: "review.json", failedRows: "failed-rows.csv")
    }

    static func write(_ value: some Encodable, to path: String) throws {
        try writeJSONFile(value, to: path)
    }
}

extension RunFiles {
    /// Every stage's files under its description's names (no `pipeline.json`), as render finds them.
    static let pipelineDefaults = RunFiles(config: nil, stages: Stage.pipeline)
}
