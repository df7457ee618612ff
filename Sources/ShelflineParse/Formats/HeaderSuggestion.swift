import ShelflineCore

/// What to tell a user whose header no format recognises: the formats whose column names it
/// shares most, and the `--columns` line that reads it as a spreadsheet.
struct HeaderSuggestion {
    let header: [String]
    var formats: [any ImportFormat] = ImportFormats.all

    static let words: [(field: String, words: [String])] = [
        ("title", ["title", "name"]), ("author", ["author", "writer", "by", "creator"]),
        ("isbn", ["isbn", "ean"]), ("rating", ["rating", "stars", "score", "rated"]),
        ("shelf", ["shelf", "status", "state", "list"]), ("added", ["added", "acquired", "created"]),
        ("finished", ["finished", "read", "completed", "done", "ended"]), ("review", ["review", "comment"]),
    ]

    var text: String {
        let keys = header.map(ExportSchema.key)
        var closest: [(name: String, shared: [String])] = []
        for format in formats where format.name != .generic {
            let schema = format.schema(ParseParameters())
            let names = Set(schema.columns.values.joined()).union(schema.own.joined()).union(schema.signature.joined())
            let shared = keys.filter(names.contains)
            if !shared.isEmpty { closest.append((format.name.rawValue, shared)) }
        }
        closest.sort { $0.shared.count > $1.shared.count }
        var parts: [String] = []
        if !closest.isEmpty {
            parts.append(
                "closest: "
                    + closest.prefix(2).map { "\($0.name) (shares \($0.shared.joined(separator: ", ")))" }.joined(separator: ", ")
            )
        }
        parts.append("to read it as a spreadsheet: --columns " + columnsLine(keys))
        return parts.joined(separator: "; ")
    }

    /// Each field with the first unused column whose name holds one of its words; `title=COLUMN`
    /// when none names a title.
    func columnsLine(_ keys: [String]) -> String {
        var used = Set<Int>(), items: [String] = []
        for (field, words) in Self.words {
            let found = keys.indices.first { index in
                !used.contains(index)
                    && words.contains { keys[index].split(separator: " ").contains(Substring($0)) || keys[index] == $0 }
            }
            if let found {
                used.insert(found)
                items.append("\(field)=\(header[found].trimmingSpaces)")
            } else if field == "title" {
                items.append("title=COLUMN")
            }
        }
        return items.joined(separator: ",")
    }
}
