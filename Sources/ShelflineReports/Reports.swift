import ShelflineCore

/// What parse read: the counts every later report starts from, and where the source is.
public struct ParseReport: Codable, Sendable, Equatable, FileStageReport {
    public var input: String
    public var format: SourceFormat
    public var delimiter: String
    /// Header cells as read (repaired to UTF-8), for the failed-rows export.
    public var header: [String]
    /// Raw bytes of the header line (offset 0, after any BOM), for verbatim failed-rows export.
    public var headerByteOffset: Int
    public var headerByteLength: Int
    public var rowsRead: Int
    public var rowsWritten: Int
    public var rowsRejected: Int
    /// Rows the source marks as not to be imported (`RejectedRow.skipped`), in the rejects file
    /// but not rejected; absent when there were none. rowsRead = written + rejected + skipped.
    public var rowsSkipped: Int?
    /// Fields that held bytes that were not UTF-8 and were repaired from Latin-1/CP1252.
    public var fieldsRepaired: Int
    /// Rows with more fields than the header, all the extra ones empty, read as if they were not
    /// there (absent when there were none, so reports of ordinary files keep their bytes).
    public var rowsWithEmptyExtraFields: Int?
    /// NUL bytes dropped from cells (a NUL is never data: docs/parse.md), and the source lines of
    /// the first `nulByteLinesKept` rows that held one; both absent when there were none.
    public var nulBytesDropped: Int?
    public var nulByteLines: [Int]?
    /// The columns of the file whose content the library cannot hold, each with why
    /// (`column: why`), in header order; absent when there are none.
    public var notCarried: [String]?
    /// The file holding the records' reviews and notes (`RecordTexts`), which merge joins back;
    /// absent in reports of parses that kept them in the records.
    public var texts: RecordTexts.Reference?

    /// How many lines `nulByteLines` lists at most (the count is always whole).
    public static let nulByteLinesKept = 100

    /// Rows read (`StageReport`): written + rejected + skipped.
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
    /// Rows the source marks as not to be imported (`RejectedRow.skipped`); absent when none.
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
    /// Of `matchedByIsbn` and `matchedBySearch`, the matches by the source that made them (absent
    /// when no match named its source).
    public var isbnBySource: [String: Int]?
    public var searchBySource: [String: Int]?
    public init() {}
    public var total: Int { matchedByIsbn + matchedBySearch + needsReview + notEnriched }

    /// Counts one row; a match also under `source`, when it names one.
    public mutating func count(_ status: MatchStatus, source: String?) {
        count(status)
        guard let source else { return }
        if status == .matchedByIsbn { isbnBySource = (isbnBySource ?? [:]).merging([source: 1], uniquingKeysWith: +) }
        if status == .matchedBySearch { searchBySource = (searchBySource ?? [:]).merging([source: 1], uniquingKeysWith: +) }
    }

    /// Matches by ISBN and by search of each source that made them, when more than one source
    /// matched (what the report page and the import Live Activity show); nil otherwise.
    public var matchesBySource: [String: Int]? {
        let matches = (isbnBySource ?? [:]).merging(searchBySource ?? [:], uniquingKeysWith: +)
        return matches.count > 1 ? matches : nil
    }

    /// ` (openlibrary 450, googlebooks 19)` when more than one source matched, most first; else empty.
    public static func sourceBreakdown(_ counts: [String: Int]?) -> String {
        guard let counts, counts.count > 1 else { return "" }
        let parts = counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.key) \($0.value)" }
        return " (" + parts.joined(separator: ", ") + ")"
    }

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
    /// Paths (relative to the run directory) of the ledger, review and failed-rows files.
    public var ledger: String
    public var review: String
    public var failedRows: String
    /// Rows imported without metadata (in the library), apart from the rejected rows in `failedRows`.
    public var notEnrichedRows: String?
    /// Rows still needing a review decision after the decisions file was applied: the rows of
    /// `review`. Absent in reports written before it existed (`rowsToReview` falls back).
    public var reviewOpen: Int?
    /// Books of the library this import showed to be another title than the library knew them by
    /// (a row with the ISBN of `War: volume 0` had been filed under `War`): rows of earlier imports
    /// may have joined them by title alone and be other books, which only rebuilding the library
    /// from the stored imports parts (`shelfline run` does it then; docs/library.md). Absent: none.
    public var booksToRebuild: Int?
    /// Data rows of `notEnrichedRows` (its header excluded), so render need not count a file that
    /// can hold most of an import. Absent in reports written before it existed: render counts them.
    public var notEnrichedRowCount: Int?

    /// The one count of rows still to review, after decisions: what the run summary, the import
    /// Live Activity, the report page and notify's `needsReview` event all show. Lookup's
    /// `enrichment.needsReview` counts the rows it could not decide, decided or not.
    public var rowsToReview: Int { reviewOpen ?? enrichment.needsReview }
    /// Rows lookup could not decide that a review decision has settled.
    public var rowsReviewed: Int { max(0, enrichment.needsReview - rowsToReview) }

    /// Rows read (`StageReport`): the outcomes sum to it.
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
