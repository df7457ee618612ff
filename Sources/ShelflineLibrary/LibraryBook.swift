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
    /// A metadata source matched the book: it holds the source's edition or work id, whatever the source
    /// or the id's shape. The one meaning of "enriched" for merge and its not-enriched export.
    public var isEnriched: Bool { editionKey != nil || workKey != nil }
}

/// What one import changed in one book.
public struct Contribution: Codable, Sendable, Equatable {
    /// `--import-id`: the orchestrator's run id, or the input's content hash.
    public var importId: String
    public var format: SourceFormat
    /// Source lines (1-based, the header is line 1), ascending.
    public var lines: [Int]
    public var rowIds: [String]?
    /// Book fields this import set or changed, sorted; `["created"]` for the import that created the book.
    public var fields: [String]
}
