import ShelflineCore

/// One book of the persistent library: one line of `library.ndjson.gz`, sorted by `id`.
///
/// Bibliographic fields come from the exports; lookup metadata only fills gaps (those fields are
/// listed in `metadataFields`, so a later export value replaces them). Reader fields come only
/// from exports. `keys` are the identity keys this book owns: every key belongs to one book.
public struct LibraryBook: Codable, Sendable, Equatable {
    /// `b` + 16 hex digits of SHA-256 of the key the book was created from; never changes.
    public var id: String
    /// Identity keys owned by this book (`isbn:…`, `ta:…`), sorted.
    public var keys: [String]

    // MARK: Bibliographic
    public var title: String
    /// The title cell as the reader's export wrote it, when the title with its series put back
    /// (`Dune (Dune Chronicles, #1)`) would read otherwise (`Dune (Dune Chronicles #1)`): exports
    /// give it back as written. From the row that made the book (docs/export.md).
    public var titleAsWritten: String?
    public var subtitle: String?
    public var series: String?
    public var seriesPosition: String?
    public var author: String?
    public var additionalAuthors: [String]?
    public var isbn13: String?
    public var isbn10: String?
    /// An ISBN cell the book's ISBNs do not show, as the reader's export wrote it (inside Goodreads'
    /// `="…"`): a check digit that fails, or another edition's ISBN-10 beside the ISBN-13. Exports
    /// give it back; it is never a key nor used to match. From the row that gave the book its
    /// ISBNs (docs/export.md).
    public var isbnAsWritten: String?
    public var asin: String?
    /// The identifiers the book has no field of its own for, by scheme (`BookRecord.identifiers`):
    /// every scheme any import gave, the first import's value kept for each.
    public var identifiers: [String: String]?
    public var publisher: String?
    public var binding: String?
    public var pages: Int?
    public var year: Int?
    public var originalYear: Int?
    /// The matching source's own edition and work ids (`enrichmentSource` names it) and its
    /// cover: Open Library's numbered cover, or an image URL from a source without numbered ones.
    public var editionKey: String?
    public var workKey: String?
    public var coverId: Int?
    public var coverURL: String?
    /// Bibliographic fields whose value came from lookup metadata rather than an export, sorted.
    public var metadataFields: [String]?

    // MARK: Reader
    public var shelf: String?
    public var shelves: [String]?
    public var rating: Double?
    public var dateAdded: String?
    public var reads: [ReadSpan]?
    public var readCount: Int?
    public var review: String?
    public var notes: String?
    public var owned: Bool?
    /// The exports' own reader cells (see `BookRecord`): kept so that an export in the source's
    /// format gives them back.
    public var ownedCopies: Int?
    public var shelfPositions: [ShelfPosition]?
    public var spoiler: Bool?
    public var recommendedFor: String?
    public var recommendedBy: String?
    public var purchaseDate: String?
    public var purchaseLocation: String?
    public var condition: String?
    public var conditionDescription: String?
    public var bcid: String?
    public var contributors: String?
    public var moods: [String]?
    public var pace: String?
    public var characterOrPlotDriven: String?
    public var strongCharacterDevelopment: String?
    public var loveableCharacters: String?
    public var diverseCharacters: String?
    public var flawedCharacters: String?
    public var contentWarnings: String?
    public var contentWarningDescription: String?

    // MARK: Enrichment and review
    /// How the metadata was found: a `MatchStatus` raw value, or `review` after an accepted decision.
    public var enrichment: String?
    /// Which source answered (`catalog`, `openlibrary`, `review`).
    public var enrichmentSource: String?
    /// Set while lookup's match is ambiguous and no decision was recorded.
    public var needsReview: Bool?
    /// `accepted` or `rejected` once a review decision was applied.
    public var reviewDecision: String?

    // MARK: Provenance
    /// Every import that changed this book, oldest first.
    public var provenance: [Contribution]

    public init(id: String, title: String) {
        self.id = id
        self.keys = []
        self.title = title
        self.provenance = []
    }
}

extension LibraryBook {
    /// A metadata source matched the book: it holds that source's own id for it, an edition's or,
    /// when the source named only a work, the work's, whatever the source (`enrichmentSource`, or
    /// `review` for a decision's candidate; stored matches written without a source name count the
    /// same) and whatever the id's shape. The one meaning of "enriched" for merge and its not-enriched export.
    public var isEnriched: Bool { editionKey != nil || workKey != nil }
}

/// What one import changed in one book.
public struct Contribution: Codable, Sendable, Equatable {
    /// The import id (`--import-id`: the orchestrator's run id, or the input's content hash).
    public var importId: String
    public var format: SourceFormat
    /// Source lines (1-based, header is line 1) of the rows that fed this book, ascending.
    public var lines: [Int]
    /// The source's own row ids of those rows, when it has them.
    public var rowIds: [String]?
    /// Names of the book fields this import set or changed, sorted; `["created"]` for the import
    /// that created the book (it set every field the book then had).
    public var fields: [String]

    public init(importId: String, format: SourceFormat, lines: [Int], rowIds: [String]?, fields: [String]) {
        self.importId = importId
        self.format = format
        self.lines = lines
        self.rowIds = rowIds
        self.fields = fields
    }
}
