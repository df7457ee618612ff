import Foundation

// The record format's `shelfPositions`. Goodreads' `Bookshelves with positions` nearly always
// names the shelves of `Bookshelves`, in the same order, so a record writes only the positions,
// aligned with `shelves`: `"shelfPositions":[267,38,null]` (null: that shelf has no position).
// Measured on the 200,000-row corpus-shaped export: the object array
// (`[{"position":267,"shelf":"g-before"},…]`) is 28 % of every record line (396 of 1,422 bytes),
// repeating every shelf name; compact, 58 bytes (docs/parse.md has the stage figures). A list that
// does not line up with `shelves` (another count, order or name) keeps the object array; readers
// take both shapes (a stage run by hand on an older run's files). The library's own format
// (`LibraryBook`) keeps the object array.
extension ShelfPosition {
    /// The positions of `positions` when each names, byte for byte, the shelf at its index of
    /// `shelves` (the compact shape); nil when they do not line up.
    public static func aligned(_ positions: [ShelfPosition], with shelves: [String]?) -> [Int?]? {
        guard let shelves, shelves.count == positions.count else { return nil }
        // Bytes, not `==`: String equality is canonical equivalence, and the shelf must come back verbatim.
        for (item, shelf) in zip(positions, shelves) where !item.shelf.utf8.elementsEqual(shelf.utf8) { return nil }
        return positions.map(\.position)
    }

    /// The list the compact shape `positions` stands for; nil when it does not have one entry per shelf.
    public static func resolving(_ positions: [Int?], shelves: [String]?) -> [ShelfPosition]? {
        let shelves = shelves ?? []
        guard positions.count == shelves.count else { return nil }
        return zip(shelves, positions).map { ShelfPosition(shelf: $0, position: $1) }
    }

    /// The one-line reason a compact list that does not line up is refused.
    public static func misalignment(positions: Int, shelves: [String]?) -> String {
        "\(positions) positions for \(shelves?.count ?? 0) shelves"
    }

    /// A record's `shelfPositions` under `key`, in either shape.
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

    /// Writes `list` under `key`: compact when it lines up with `shelves`, else the object array.
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
