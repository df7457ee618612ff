import ShelflineCore

/// Open Library's reading log export (My Books → Export: `Work Id, Edition Id, Bookshelf`).
///
/// It holds only the book's keys and its shelf: its title is its key (the work's, else the
/// edition's), marked a placeholder until a metadata source looks the key up.
struct OpenLibraryReadingLogFormat: FixedSchemaFormat {
    var summary: String { "Open Library: the reading log CSV (Work Id, Edition Id, Bookshelf)" }
    var titleFromOwnCells: Bool { true }

    static let schema = ExportSchema(
        format: .openlibrary,
        signature: [["work id"], ["bookshelf"]],
        columns: [.shelf: ["bookshelf"]],
        own: [["work id"], ["edition id"]])

    func readOwnCells(_ cells: OwnCells, into record: inout ParsedRecord) -> String? {
        let work = cells.string(0), edition = cells.string(1)
        guard let key = work ?? edition else { return "no Work Id or Edition Id: nothing names the book" }
        var identifiers: [String: String] = [:]
        if let work { identifiers["openlibrary-work"] = work }
        if let edition { identifiers["openlibrary-edition"] = edition }
        record.identifiers = identifiers
        record.title = .string(key)
        record.titleIsPlaceholder = true
        return nil
    }
}
