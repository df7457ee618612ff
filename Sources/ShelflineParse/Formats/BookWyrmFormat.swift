import ShelflineCore

/// BookWyrm's CSV export (Settings → Export): one row per book, its latest reading and review.
///
/// `shelf` is `to-read`, `reading`, `read`, `stopped-reading` (did-not-finish) or a custom shelf's
/// slug (display name in `shelf_name`), whose rows get their reading state from their dates.
struct BookWyrmFormat: FixedSchemaFormat {
    var summary: String { "BookWyrm: the CSV export" }
    var authorCell: AuthorCell { .list() }

    /// Column → `BookRecord.identifiers` scheme; `openlibrary_key` is split by kind.
    static let identifierColumns: [(column: String, scheme: String)] = [
        ("remote_id", "bookwyrm"), ("openlibrary_key", "openlibrary"), ("inventaire_id", "inventaire"),
        ("librarything_key", "librarything"), ("goodreads_key", "goodreads"), ("bnf_id", "bnf"), ("viaf", "viaf"),
        ("wikidata", "wikidata"), ("aasin", "audible"), ("isfdb", "isfdb"), ("oclc_number", "oclc"),
        ("finna_key", "finna"), ("libris_key", "libris"),
    ]

    static let schema = ExportSchema(
        format: .bookwyrm,
        signature: [["title"], ["author_text"], ["remote_id", "review_cw", "shelf_name", "openlibrary_key"]],
        columns: [
            .title: ["title"], .author: ["author_text"], .isbn: ["isbn_10"], .isbn13: ["isbn_13"], .asin: ["asin"],
            .pages: ["pages"], .dateStarted: ["start_date"], .dateRead: ["finish_date"], .rating: ["rating"],
            .review: ["review_content"], .dateAdded: ["shelf_date"],
            .reviewName: ["review_name"], .reviewContentWarning: ["review_cw"],
        ],
        own: [["shelf"], ["shelf_name"], ["stopped_date"], ["review_cw"]] + identifierColumns.map { [$0.column] })

    let cannotCarry: [String: String] = [
        "review_published": "when the review was published; not kept",
        "stopped_date": "when the reader stopped; kept only as the shelf did-not-finish",
    ]

    func readOwnCells(_ cells: OwnCells, into record: inout ParsedRecord) -> String? {
        var identifiers: [String: String] = [:]
        for (index, entry) in Self.identifierColumns.enumerated() {
            guard let value = cells.string(4 + index) else { continue }
            identifiers[entry.scheme == "openlibrary" ? IdentifierList.schemeName("openlibrary", value: value) : entry.scheme] =
                value
        }
        if !identifiers.isEmpty { record.identifiers = identifiers }
        if cells.string(3) != nil, record.review != nil { record.spoiler = true }
        let stopped = cells.string(2) != nil
        switch cells.string(0).map({ ExportSchema.key($0) }) {
        case "to-read"?: record.shelf = .string(ShelfName.toRead)
        case "reading"?: record.shelf = .string(ShelfName.currentlyReading)
        case "read"?: record.shelf = .string(ShelfName.read)
        case "stopped-reading"?: record.shelf = .string(ShelfName.didNotFinish)
        case let custom:
            // A custom shelf's (or no shelf's) reading state is read from the dates.
            if let custom { record.shelves = [.string(cells.string(1) ?? custom)] }
            record.shelf = ShelfName.fromDates(record.reads ?? [], stopped: stopped).map(FieldText.string)
        }
        return nil
    }
}
