import ShelflineCore

/// Open Library's reading log export (My Books → Export: `Work Id, Edition Id, Bookshelf`).
///
/// It holds no title, author or ISBN: only the book's Open Library keys and its shelf. A row is
/// never rejected for that: it keeps its keys (`identifiers`) and its shelf, and its title is its
/// key (`OL45804W`, the work's, else the edition's), marked a placeholder (`titleIsPlaceholder`),
/// until a metadata source that looks books up by key fills it in. BookWyrm's shelf names: `Want to Read`, `Currently Reading`, `Already Read`.
struct OpenLibraryReadingLogFormat: FixedSchemaFormat {
    var name: SourceFormat { .openlibrary }
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
