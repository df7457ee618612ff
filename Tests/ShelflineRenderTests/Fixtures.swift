import Foundation
import ShelflineCore
import TestSupport

/// Builders for run directories and snapshot checks shared by the render tests.
enum Fixtures {
    static let examples = ExecutableRunner.repositoryRoot + "/examples/beer-queue"

    static func example(_ name: String) throws -> String {
        try String(contentsOfFile: examples + "/" + name, encoding: .utf8)
    }

    static func parseReport(rowsRead: Int, rejected: Int, input: String = "goodreads_library_export.csv") -> ParseReport {
        ParseReport(input: input, format: .goodreads, delimiter: ",", header: ["Book Id", "Title"], headerByteOffset: 0,
                    headerByteLength: 13, rowsRead: rowsRead, rowsWritten: rowsRead - rejected, rowsRejected: rejected,
                    fieldsRepaired: 0)
    }

    static func mergeReport(added: Int, updated: Int, duplicates: Int, rejected: Int, needsReview: Int, notEnriched: Int,
                            matchedByIsbn: Int) -> MergeReport {
        var outcomes = ImportOutcomes()
        outcomes.added = added
        outcomes.updated = updated
        outcomes.duplicateInFile = duplicates
        outcomes.rejected = rejected
        var enrichment = EnrichmentCounts()
        enrichment.needsReview = needsReview
        enrichment.notEnriched = notEnriched
        enrichment.matchedByIsbn = matchedByIsbn
        return MergeReport(importId: "imp-1", rowsRead: outcomes.total, outcomes: outcomes, enrichment: enrichment,
                           libraryBooks: added + 40, ledger: "ledger.ndjson.gz", review: "review.json", failedRows: "failed-rows.csv")
    }

    static func write(_ value: some Encodable, to path: String) throws {
        try writeJSONFile(value, to: path)
    }

    /// Parses JSON into Foundation objects (for structural comparisons).
    static func object(_ data: Data) throws -> Any {
        try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    }

    /// The JSON value at `path` (object keys) inside a snapshot file's bytes, re-serialised.
    static func member(_ data: Data, _ path: [String]) throws -> Data? {
        var value = try object(data)
        for key in path {
            guard let dictionary = value as? [String: Any], let next = dictionary[key] else { return nil }
            value = next
        }
        return try JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys])
    }

    /// True when the JSON anywhere holds an explicit `null`.
    static func containsNull(_ value: Any) -> Bool {
        switch value {
        case is NSNull: true
        case let dictionary as [String: Any]: dictionary.values.contains(where: containsNull)
        case let array as [Any]: array.contains(where: containsNull)
        default: false
        }
    }

    /// Each line of an NDJSON history file.
    static func historyLines(_ path: String) throws -> [Data] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return data.split(separator: UInt8(ascii: "\n")).map { Data($0) }
    }
}
