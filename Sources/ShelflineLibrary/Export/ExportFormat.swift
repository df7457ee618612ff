import ShelflineCore

/// The files `shelfline export` writes; what each cannot carry of what the library holds (`limits`)
/// comes from codegen/fields.json.
public enum ExportFormat: String, CaseIterable, Sendable {
    /// Goodreads' current "Export Library" CSV (24 columns): what every reading service imports.
    case goodreads
    /// StoryGraph's export CSV (23 columns).
    case storygraph
    /// The library itself, one book (a JSON object) a line: `docs/library-book.schema.json`.
    case ndjson
}
