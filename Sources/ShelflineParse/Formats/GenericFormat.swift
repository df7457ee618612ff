import ShelflineCore

/// Any CSV, read through the column mapping configured in pipeline.json's parse parameters.
struct GenericFormat: ImportFormat {
    var name: SourceFormat { .generic }
    var summary: String { "a mapped CSV: any CSV, through the column mapping in pipeline.json" }
    var acceptsShortRows: Bool { true }
    var headerName: String { "generic (as mapped)" }

    func schema(_ parameters: ParseParameters) -> ExportSchema { (parameters.generic ?? GenericMapping()).schema }

    /// Only a configured mapping is tried on its own: each role's own name matches too many files.
    func detected(with parameters: ParseParameters) -> Bool { parameters.generic != nil }

    func listSeparator(_ parameters: ParseParameters) -> Character { parameters.generic?.listSeparator.first ?? "," }
}
