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

    public static func misalignment(positions: Int, shelves: [String]?) -> String {
        "\(positions) positions for \(shelves?.count ?? 0) shelves"
    }

    /// Either shape.
    static func decodeList<Key>(
        _ container: KeyedDecodingContainer<Key>, forKey key: Key,
        shelves: [String]?
    ) throws -> [ShelfPosition]? {
        guard container.contains(key), try !container.decodeNil(forKey: key) else { return nil }
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
        if compact.isEmpty { return objects }
        guard objects.isEmpty, let list = resolving(compact, shelves: shelves) else {
            let reason =
                objects.isEmpty
                ? misalignment(positions: compact.count, shelves: shelves)
                : "mixes positions and {shelf, position} objects"
            throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: reason)
        }
        return list
    }

    /// Compact when it lines up with `shelves`.
    static func encodeList<Key>(
        _ list: [ShelfPosition]?, shelves: [String]?, into container: inout KeyedEncodingContainer<Key>,
        forKey key: Key
    ) throws {
        guard let list else { return }
        if let compact = aligned(list, with: shelves) {
            try container.encode(compact, forKey: key)
        } else {
            try container.encode(list, forKey: key)
        }
    }
}
