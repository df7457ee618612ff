import ShelflineCore
import ShelflineReports

/// `lookup-report.json`: where every record went and what it cost. `counts` sum to `recordsRead`.
public struct LookupReport: Codable, Sendable, Equatable {
    public var input: String
    public var output: String
    public var sources: [String]
    public var recordsRead = 0
    public var recordsWritten = 0
    public var counts = EnrichmentCounts()
    public var matchesBySource: [String: SourceMatchCounts] = [:]
    public var notEnrichedReasons: [String: Int] = [:]
    /// `notEnriched` records a source could not answer: a run of the same export asks again.
    public var rowsToAskAgain: Int?
    /// Duplicate rows (dedupe `duplicateInFile`) that reused the first row's answer.
    public var duplicatesReused = 0
    public var cacheHits = 0
    /// Totals of all remote sources.
    public var requests = 0
    public var retries = 0
    public var rateLimited = 0
    public var breakerTrips = 0
    public var http: [String: HTTPCounters] = [:]
    public var catalog: CatalogSummary?
}

/// One source's matches.
public struct SourceMatchCounts: Codable, Sendable, Equatable {
    public var byIsbn = 0
    public var bySearch = 0
}

/// The catalog index used by a run.
public struct CatalogSummary: Codable, Sendable, Equatable {
    public var index: String
    /// This run built the index (the dumps were new or changed).
    public var built: Bool
    public var editions: Int
    public var skippedLines: Int
    /// Of `skippedLines`, lines repeating a key (the first line is kept).
    public var duplicateKeys: Int?
    public var skippedReasons: [String: Int]?
}
