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
    /// Matched records by the source that matched them (`openlibrary`, `googlebooks`, …).
    public var matchesBySource: [String: SourceMatchCounts] = [:]
    /// `notEnriched` records by reason (`no candidate`, `source unavailable`, …).
    public var notEnrichedReasons: [String: Int] = [:]
    /// Of the `notEnriched` records, those a source could not answer (offline, breaker open, quota
    /// spent, retries exhausted): `shelfline run` of the same export asks for them again.
    public var rowsToAskAgain: Int?
    /// Duplicate rows (dedupe `duplicateInFile`) that reused the first row's answer.
    public var duplicatesReused = 0
    /// Remote answers served from the persistent cache instead of a request.
    public var cacheHits = 0
    /// HTTP attempts sent, retries, 429s seen, circuit-breaker trips (all remote sources).
    public var requests = 0
    public var retries = 0
    public var rateLimited = 0
    public var breakerTrips = 0
    public var http: [String: HTTPCounters] = [:]
    public var catalog: CatalogSummary?

    public init(input: String, output: String, sources: [String]) {
        self.input = input
        self.output = output
        self.sources = sources
    }
}

/// One source's matches: by ISBN and by title/author search.
public struct SourceMatchCounts: Codable, Sendable, Equatable {
    public var byIsbn = 0
    public var bySearch = 0
    public init() {}
}

/// The catalog index used by a run.
public struct CatalogSummary: Codable, Sendable, Equatable {
    public var index: String
    /// True when this run built the index (the dumps were new or changed).
    public var built: Bool
    public var editions: Int
    /// Dump lines skipped: malformed, required fields missing, or a key an earlier line had.
    public var skippedLines: Int
    /// Of `skippedLines`, lines repeating an edition, work or author key (the first line is kept).
    public var duplicateKeys: Int?
    /// `skippedLines` by reason.
    public var skippedReasons: [String: Int]?
}
