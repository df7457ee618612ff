import ShelflineCore

extension LibraryBook {
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
