import ShelflineCore

/// The files `shelfline export` writes; what each cannot carry (`limits`) comes from codegen/fields.json.
public enum ExportFormat: String, CaseIterable, Sendable {
    /// Goodreads' "Export Library" CSV: what every reading service imports.
    case goodreads
    case storygraph
    /// The library itself: `docs/library-book.schema.json`.
    case ndjson
}
