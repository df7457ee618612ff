import ShelflineCore

/// Calibre's CSV catalog (Create a catalog → CSV): any subset of its columns, in any order.
///
/// Calibre has no reading state, so every row lands on `to-read` (as BookWyrm's Calibre import
/// does). Ratings are stars; a cell above 5 is Calibre's internal 0–10 scale. `comments` is the
/// book's description, not a review. Authors are joined with ` & ` (newer) or `, ` (older catalogs).
struct CalibreFormat: FixedSchemaFormat {
    var summary: String { "Calibre: the CSV catalog (any subset of its columns, in any order)" }

    /// One of these must be there besides `title` and `authors`.
    static let ownSignature = ["author_sort", "title_sort", "series_index", "library_name", "uuid", "identifiers"]

    static let schema = ExportSchema(
        format: .calibre,
        signature: [["title"], ["authors"], ownSignature],
        columns: [
            .id: ["id"], .title: ["title"], .author: ["authors"], .isbn: ["isbn"], .publisher: ["publisher"],
            .year: ["pubdate"], .dateAdded: ["timestamp"], .shelves: ["tags"],
        ],
        own: [["rating"], ["identifiers"], ["series"], ["series_index"], ["uuid"]])

    var authorCell: AuthorCell { .list(separators: ["&", ","]) }

    let cannotCarry: [String: String] = [
        "comments": "the book's description, not the reader's review; not kept (lookup supplies descriptions)",
        "formats": "the e-book files' formats; not kept", "size": "the e-book files' size; not kept",
        "cover": "the cover file's path; not kept", "languages": "no language field; not kept",
        "library_name": "the Calibre library's name; not kept",
        "author_sort": "the sort form of authors; not kept", "title_sort": "the sort form of the title; not kept",
    ]

    func readOwnCells(_ cells: OwnCells, into record: inout ParsedRecord) -> String? {
        if let text = cells.string(0), let value = Double(text), value.isFinite, value > 0 {
            record.rating = value > 5 ? (value <= 10 ? value / 2 : nil) : value
        }
        var identifiers = IdentifierList.parse(cells.string(1) ?? "")
        if let isbn = identifiers.removeValue(forKey: "isbn"), record.isbn13 == nil, record.isbn10 == nil {
            record.setISBNs([ISBN.classify(isbn)])
        }
        if let uuid = cells.string(4) { identifiers["calibre"] = uuid }
        if !identifiers.isEmpty { record.identifiers = identifiers }
        if let series = cells.string(2) {
            record.series = .string(series)
            record.seriesPosition = cells.string(3).flatMap(Self.seriesPosition).map(FieldText.string)
        }
        if record.shelf == nil { record.shelf = .string(ShelfName.toRead) }
        return nil
    }

    /// A series index as a position: `8.0` → `8`, `1.5` → `1.5`; `0`, empty or not a number → nil.
    static func seriesPosition(_ cell: String) -> String? {
        guard let value = Double(cell), value.isFinite, value > 0 else { return nil }
        if value == value.rounded(), value < 1e9 { return String(Int(value)) }
        return cell.trimmingSpaces.description
    }
}

/// `scheme:value` lists (Calibre's `identifiers`: `isbn:978…,goodreads:39077187,amazon:B00…`).
enum IdentifierList {
    /// Scheme (`schemeName`) → value; items lacking either are left out; a scheme's first is kept.
    static func parse(_ cell: String) -> [String: String] {
        var result: [String: String] = [:]
        for item in cell.split(separator: ",") {
            guard let colon = item.firstIndex(of: ":") else { continue }
            let scheme = item[..<colon].trimmingSpaces.lowercased()
            let value = String(item[item.index(after: colon)...].trimmingSpaces)
            guard !scheme.isEmpty, !value.isEmpty else { continue }
            let name = schemeName(scheme, value: value)
            if result[name] == nil { result[name] = value }
        }
        return result
    }

    /// Open Library ids by their kind (`OL…W` a work, `OL…M` an edition); Amazon's spellings as `amazon`.
    static func schemeName(_ scheme: String, value: String) -> String {
        switch scheme {
        case "openlibrary", "olid", "ol":
            return value.uppercased().hasSuffix("W") ? "openlibrary-work" : "openlibrary-edition"
        case "amazon", "asin", "mobi-asin", "amazon_com": return "amazon"
        default: return scheme
        }
    }
}
