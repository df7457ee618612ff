import Foundation

// A record's `shelfPositions` nearly always name the shelves of `shelves` in order, so it writes
// only the positions, aligned with them: `[267,38,null]`. The object array repeated every shelf
// name, 28 % of a record line (docs/parse.md). A list that does not line up keeps the object array,
// as the library does; readers take both shapes.
extension ShelfPosition {
    /// The compact shape when each names, byte for byte, the shelf at its index of `shelves`.
    public static func aligned(_ positions: [ShelfPosition], with shelves: [String]?) -> [Int?]? {
        guard let shelves, shelves.count == positions.count else { return nil }
        // Bytes, not `==`: String equality is canonical equivalence, and the shelf must come back verbatim.
        for (item, shelf) in zip(positions, shelves) where !item.shelf.utf8.elementsEqual(shelf.utf8) { return nil }
        return positions.map(\.position)
    }

    /// Nil unless `positions` has one entry per shelf.
    public static func resolving(_ positions: [Int?], shelves: [String]?) -> [ShelfPosition]? {
        let shelves = shelves ?? []
        guard positions.count == shelves.count else { return nil }
        return zip(shelves, positions).map { ShelfPosition(shelf: $0, position: $1) }
    }
}

extension RecordMember {
    /// Either shape read, after `shelves`; written compact when it lines up with them.
    static func shelfPositions(_ name: String, _ field: WritableKeyPath<BookRecord, [ShelfPosition]?>) -> RecordMember {
        let key = AnyKey(stringValue: name)
        return RecordMember(
            decode: { container, record in
                guard container.contains(key), try !container.decodeNil(forKey: key) else { return }
                var items = try container.nestedUnkeyedContainer(forKey: key)
                var compact: [Int?] = [], objects: [ShelfPosition] = []
                while !items.isAtEnd {
                    if try items.decodeNil() {
                        compact.append(nil)
                    } else if let position = try? items.decode(Int.self) {
                        compact.append(position)
                    } else {
                        objects.append(try items.decode(ShelfPosition.self))
                    }
                }
                if compact.isEmpty {
                    record[keyPath: field] = objects
                } else if objects.isEmpty, let list = ShelfPosition.resolving(compact, shelves: record.shelves) {
                    record[keyPath: field] = list
                } else {
                    let reason =
                        objects.isEmpty
                        ? "\(compact.count) positions for \(record.shelves?.count ?? 0) shelves"
                        : "mixes positions and {shelf, position} objects"
                    throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: reason)
                }
            },
            encode: { record, container in
                guard let list = record[keyPath: field] else { return }
                if let compact = ShelfPosition.aligned(list, with: record.shelves) {
                    try container.encode(compact, forKey: key)
                } else {
                    try container.encode(list, forKey: key)
                }
            })
    }
}
