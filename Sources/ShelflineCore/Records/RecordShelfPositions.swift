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

/// `BookRecord`'s JSON, written out only for `shelfPositions` (above); every other member is what
/// the synthesised conformance wrote (absent values omitted, null read as absent).
extension BookRecord {
    enum CodingKeys: String, CodingKey {
        case format, line, rowId, byteOffset, byteLength, title, titleBase, titleIsPlaceholder, series, seriesPosition, author
        case additionalAuthors, isbn13, isbn10, isbnRaw, asin, identifiers, publisher, binding, pages, year, originalYear, rating
        case shelf, shelves, dateAdded, reads, readCount, review, notes, textsApart, owned, ownedCopies, shelfPositions, spoiler
        case recommendedFor, recommendedBy, purchaseDate, purchaseLocation, condition, conditionDescription, bcid
        case contributors, moods, pace, characterOrPlotDriven, strongCharacterDevelopment, loveableCharacters
        case diverseCharacters, flawedCharacters, contentWarnings, contentWarningDescription, dedupe, match, metadata
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        format = try c.decode(SourceFormat.self, forKey: .format)
        line = try c.decode(Int.self, forKey: .line)
        rowId = try c.decodeIfPresent(String.self, forKey: .rowId)
        byteOffset = try c.decode(Int.self, forKey: .byteOffset)
        byteLength = try c.decode(Int.self, forKey: .byteLength)
        title = try c.decode(String.self, forKey: .title)
        titleBase = try c.decodeIfPresent(String.self, forKey: .titleBase)
        titleIsPlaceholder = try c.decodeIfPresent(Bool.self, forKey: .titleIsPlaceholder)
        series = try c.decodeIfPresent(String.self, forKey: .series)
        seriesPosition = try c.decodeIfPresent(String.self, forKey: .seriesPosition)
        author = try c.decodeIfPresent(String.self, forKey: .author)
        additionalAuthors = try c.decodeIfPresent([String].self, forKey: .additionalAuthors)
        isbn13 = try c.decodeIfPresent(String.self, forKey: .isbn13)
        isbn10 = try c.decodeIfPresent(String.self, forKey: .isbn10)
        isbnRaw = try c.decodeIfPresent(String.self, forKey: .isbnRaw)
        asin = try c.decodeIfPresent(String.self, forKey: .asin)
        identifiers = try c.decodeIfPresent([String: String].self, forKey: .identifiers)
        publisher = try c.decodeIfPresent(String.self, forKey: .publisher)
        binding = try c.decodeIfPresent(String.self, forKey: .binding)
        pages = try c.decodeIfPresent(Int.self, forKey: .pages)
        year = try c.decodeIfPresent(Int.self, forKey: .year)
        originalYear = try c.decodeIfPresent(Int.self, forKey: .originalYear)
        rating = try c.decodeIfPresent(Double.self, forKey: .rating)
        shelf = try c.decodeIfPresent(String.self, forKey: .shelf)
        shelves = try c.decodeIfPresent([String].self, forKey: .shelves)
        dateAdded = try c.decodeIfPresent(String.self, forKey: .dateAdded)
        reads = try c.decodeIfPresent([ReadSpan].self, forKey: .reads)
        readCount = try c.decodeIfPresent(Int.self, forKey: .readCount)
        review = try c.decodeIfPresent(String.self, forKey: .review)
        notes = try c.decodeIfPresent(String.self, forKey: .notes)
        textsApart = try c.decodeIfPresent(Bool.self, forKey: .textsApart)
        owned = try c.decodeIfPresent(Bool.self, forKey: .owned)
        ownedCopies = try c.decodeIfPresent(Int.self, forKey: .ownedCopies)
        spoiler = try c.decodeIfPresent(Bool.self, forKey: .spoiler)
        recommendedFor = try c.decodeIfPresent(String.self, forKey: .recommendedFor)
        recommendedBy = try c.decodeIfPresent(String.self, forKey: .recommendedBy)
        purchaseDate = try c.decodeIfPresent(String.self, forKey: .purchaseDate)
        purchaseLocation = try c.decodeIfPresent(String.self, forKey: .purchaseLocation)
        condition = try c.decodeIfPresent(String.self, forKey: .condition)
        conditionDescription = try c.decodeIfPresent(String.self, forKey: .conditionDescription)
        bcid = try c.decodeIfPresent(String.self, forKey: .bcid)
        contributors = try c.decodeIfPresent(String.self, forKey: .contributors)
        moods = try c.decodeIfPresent([String].self, forKey: .moods)
        pace = try c.decodeIfPresent(String.self, forKey: .pace)
        characterOrPlotDriven = try c.decodeIfPresent(String.self, forKey: .characterOrPlotDriven)
        strongCharacterDevelopment = try c.decodeIfPresent(String.self, forKey: .strongCharacterDevelopment)
        loveableCharacters = try c.decodeIfPresent(String.self, forKey: .loveableCharacters)
        diverseCharacters = try c.decodeIfPresent(String.self, forKey: .diverseCharacters)
        flawedCharacters = try c.decodeIfPresent(String.self, forKey: .flawedCharacters)
        contentWarnings = try c.decodeIfPresent(String.self, forKey: .contentWarnings)
        contentWarningDescription = try c.decodeIfPresent(String.self, forKey: .contentWarningDescription)
        dedupe = try c.decodeIfPresent(DedupeMark.self, forKey: .dedupe)
        match = try c.decodeIfPresent(MatchResult.self, forKey: .match)
        metadata = try c.decodeIfPresent(EditionMetadata.self, forKey: .metadata)
        shelfPositions = try ShelfPosition.decodeList(c, forKey: .shelfPositions, shelves: shelves)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(format, forKey: .format)
        try c.encode(line, forKey: .line)
        try c.encodeIfPresent(rowId, forKey: .rowId)
        try c.encode(byteOffset, forKey: .byteOffset)
        try c.encode(byteLength, forKey: .byteLength)
        try c.encode(title, forKey: .title)
        try c.encodeIfPresent(titleBase, forKey: .titleBase)
        try c.encodeIfPresent(titleIsPlaceholder, forKey: .titleIsPlaceholder)
        try c.encodeIfPresent(series, forKey: .series)
        try c.encodeIfPresent(seriesPosition, forKey: .seriesPosition)
        try c.encodeIfPresent(author, forKey: .author)
        try c.encodeIfPresent(additionalAuthors, forKey: .additionalAuthors)
        try c.encodeIfPresent(isbn13, forKey: .isbn13)
        try c.encodeIfPresent(isbn10, forKey: .isbn10)
        try c.encodeIfPresent(isbnRaw, forKey: .isbnRaw)
        try c.encodeIfPresent(asin, forKey: .asin)
        try c.encodeIfPresent(identifiers, forKey: .identifiers)
        try c.encodeIfPresent(publisher, forKey: .publisher)
        try c.encodeIfPresent(binding, forKey: .binding)
        try c.encodeIfPresent(pages, forKey: .pages)
        try c.encodeIfPresent(year, forKey: .year)
        try c.encodeIfPresent(originalYear, forKey: .originalYear)
        try c.encodeIfPresent(rating, forKey: .rating)
        try c.encodeIfPresent(shelf, forKey: .shelf)
        try c.encodeIfPresent(shelves, forKey: .shelves)
        try c.encodeIfPresent(dateAdded, forKey: .dateAdded)
        try c.encodeIfPresent(reads, forKey: .reads)
        try c.encodeIfPresent(readCount, forKey: .readCount)
        try c.encodeIfPresent(review, forKey: .review)
        try c.encodeIfPresent(notes, forKey: .notes)
        try c.encodeIfPresent(textsApart, forKey: .textsApart)
        try c.encodeIfPresent(owned, forKey: .owned)
        try c.encodeIfPresent(ownedCopies, forKey: .ownedCopies)
        try ShelfPosition.encodeList(shelfPositions, shelves: shelves, into: &c, forKey: .shelfPositions)
        try c.encodeIfPresent(spoiler, forKey: .spoiler)
        try c.encodeIfPresent(recommendedFor, forKey: .recommendedFor)
        try c.encodeIfPresent(recommendedBy, forKey: .recommendedBy)
        try c.encodeIfPresent(purchaseDate, forKey: .purchaseDate)
        try c.encodeIfPresent(purchaseLocation, forKey: .purchaseLocation)
        try c.encodeIfPresent(condition, forKey: .condition)
        try c.encodeIfPresent(conditionDescription, forKey: .conditionDescription)
        try c.encodeIfPresent(bcid, forKey: .bcid)
        try c.encodeIfPresent(contributors, forKey: .contributors)
        try c.encodeIfPresent(moods, forKey: .moods)
        try c.encodeIfPresent(pace, forKey: .pace)
        try c.encodeIfPresent(characterOrPlotDriven, forKey: .characterOrPlotDriven)
        try c.encodeIfPresent(strongCharacterDevelopment, forKey: .strongCharacterDevelopment)
        try c.encodeIfPresent(loveableCharacters, forKey: .loveableCharacters)
        try c.encodeIfPresent(diverseCharacters, forKey: .diverseCharacters)
        try c.encodeIfPresent(flawedCharacters, forKey: .flawedCharacters)
        try c.encodeIfPresent(contentWarnings, forKey: .contentWarnings)
        try c.encodeIfPresent(contentWarningDescription, forKey: .contentWarningDescription)
        try c.encodeIfPresent(dedupe, forKey: .dedupe)
        try c.encodeIfPresent(match, forKey: .match)
        try c.encodeIfPresent(metadata, forKey: .metadata)
    }
}
