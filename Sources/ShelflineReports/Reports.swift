import ShelflineCore

/// What parse read: the counts every later report starts from, and where the source is.
///
/// Optional counts are absent when zero, so reports of ordinary files keep their bytes.
public struct ParseReport: Codable, Sendable, Equatable, FileStageReport {
    public var input: String
    public var format: SourceFormat
    public var delimiter: String
    /// Header cells repaired to UTF-8; the byte range (after any BOM) for verbatim failed-rows exports.
    public var header: [String]
    public var headerByteOffset: Int
    public var headerByteLength: Int
    /// Written + rejected + skipped.
    public var rowsRead: Int
    public var rowsWritten: Int
    public var rowsRejected: Int
    /// Rows the source marks as not to be imported: in the rejects file, but not rejected.
    public var rowsSkipped: Int?
    /// Fields repaired from Latin-1/CP1252.
    public var fieldsRepaired: Int
    /// Rows whose fields beyond the header's were all empty, read without them.
    public var rowsWithEmptyExtraFields: Int?
    /// A NUL is never data (docs/parse.md); the first `nulByteLinesKept` lines that held one.
    public var nulBytesDropped: Int?
    public var nulByteLines: [Int]?
    /// `column: why`, in header order.
    public var notCarried: [String]?
    /// Reviews and notes (`RecordTexts`), which merge joins back; absent when kept in the records.
    public var texts: RecordTexts.Reference?

    /// The count in `nulBytesDropped` is always whole.
    public static let nulByteLinesKept = 100

    public var rowCount: Int { rowsRead }

    public init(
        input: String, format: SourceFormat, delimiter: String, header: [String], headerByteOffset: Int,
        headerByteLength: Int, rowsRead: Int, rowsWritten: Int, rowsRejected: Int, fieldsRepaired: Int,
        rowsWithEmptyExtraFields: Int? = nil, nulBytesDropped: Int? = nil, nulByteLines: [Int]? = nil,
        texts: RecordTexts.Reference? = nil, notCarried: [String]? = nil, rowsSkipped: Int? = nil
    ) {
        self.input = input
        self.format = format
        self.delimiter = delimiter
        self.header = header
        self.headerByteOffset = headerByteOffset
        self.headerByteLength = headerByteLength
        self.rowsRead = rowsRead
        self.rowsWritten = rowsWritten
        self.rowsRejected = rowsRejected
        self.rowsSkipped = rowsSkipped
        self.fieldsRepaired = fieldsRepaired
        self.rowsWithEmptyExtraFields = rowsWithEmptyExtraFields
        self.nulBytesDropped = nulBytesDropped
        self.nulByteLines = nulByteLines
        self.texts = texts
        self.notCarried = notCarried
    }
}

/// Where every row of one import went: `outcomes` sum to `rowsRead`.
public struct ImportOutcomes: Codable, Sendable, Equatable {
    public var rejected = 0
    public var added = 0
    public var updated = 0
    public var duplicateInFile = 0
    /// `RejectedRow.skipped`; absent when none.
    public var skipped: Int?
    public init() {}
    public var total: Int { rejected + added + updated + duplicateInFile + (skipped ?? 0) }
}

/// How records were enriched: the counts sum to the records that reached lookup.
public struct EnrichmentCounts: Codable, Sendable, Equatable {
    public var matchedByIsbn = 0
    public var matchedBySearch = 0
    public var needsReview = 0
    public var notEnriched = 0
    /// The matches by source (absent when no match named its source).
    public var isbnBySource: [String: Int]?
    public var searchBySource: [String: Int]?
    public init() {}
    public var total: Int { matchedByIsbn + matchedBySearch + needsReview + notEnriched }

    /// Counts one row; a match also under `source`.
    public mutating func count(_ status: MatchStatus, source: String?) {
        count(status)
        guard let source else { return }
        if status == .matchedByIsbn { isbnBySource = (isbnBySource ?? [:]).merging([source: 1], uniquingKeysWith: +) }
        if status == .matchedBySearch { searchBySource = (searchBySource ?? [:]).merging([source: 1], uniquingKeysWith: +) }
    }

    /// Matches of each source, when more than one source matched; nil otherwise.
    public var matchesBySource: [String: Int]? {
        let matches = (isbnBySource ?? [:]).merging(searchBySource ?? [:], uniquingKeysWith: +)
        return matches.count > 1 ? matches : nil
    }

    /// ` (openlibrary 450, googlebooks 19)`, most first; empty unless more than one source matched.
    public static func sourceBreakdown(_ counts: [String: Int]?) -> String {
        guard let counts, counts.count > 1 else { return "" }
        let parts = counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) \($0.value)" }
        return " (" + parts.joined(separator: ", ") + ")"
    }

    /// Counts one row.
    public mutating func count(_ status: MatchStatus) {
        switch status {
        case .matchedByIsbn: matchedByIsbn += 1
        case .matchedBySearch: matchedBySearch += 1
        case .needsReview: needsReview += 1
        case .notEnriched: notEnriched += 1
        }
    }
}

/// The merge report: the final word on one import.
public struct MergeReport: Codable, Sendable, Equatable, FileStageReport {
    public var importId: String
    public var rowsRead: Int
    public var outcomes: ImportOutcomes
    public var enrichment: EnrichmentCounts
    public var libraryBooks: Int
    /// Relative to the run directory.
    public var ledger: String
    public var review: String
    public var failedRows: String
    /// Rows imported without metadata (in the library), apart from the rejected `failedRows`.
    public var notEnrichedRows: String?
    /// Rows still needing a decision after the decisions file was applied. Absent in reports
    /// written before it existed (`rowsToReview` falls back).
    public var reviewOpen: Int?
    /// Books this import showed to be another title than the library knew them by: earlier rows may
    /// have joined them by title alone, which only rebuilding the library parts (docs/library.md).
    public var booksToRebuild: Int?
    /// So render need not count a file that can hold most of an import; absent in older reports.
    public var notEnrichedRowCount: Int?

    /// The one count every place shows; lookup's `enrichment.needsReview` counts them decided or not.
    public var rowsToReview: Int { reviewOpen ?? enrichment.needsReview }
    public var rowsReviewed: Int { max(0, enrichment.needsReview - rowsToReview) }

    public var rowCount: Int { rowsRead }

    public init(
        importId: String, rowsRead: Int, outcomes: ImportOutcomes, enrichment: EnrichmentCounts,
        libraryBooks: Int, ledger: String, review: String, failedRows: String, notEnrichedRows: String? = nil,
        reviewOpen: Int? = nil, booksToRebuild: Int? = nil, notEnrichedRowCount: Int? = nil
    ) {
        self.booksToRebuild = booksToRebuild
        self.notEnrichedRowCount = notEnrichedRowCount
        self.notEnrichedRows = notEnrichedRows
        self.reviewOpen = reviewOpen
        self.importId = importId
        self.rowsRead = rowsRead
        self.outcomes = outcomes
        self.enrichment = enrichment
        self.libraryBooks = libraryBooks
        self.ledger = ledger
        self.review = review
        self.failedRows = failedRows
    }
}
