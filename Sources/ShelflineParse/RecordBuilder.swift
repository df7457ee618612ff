import ShelflineCore

/// Turns one data row into a record: which column feeds which rule under `Normalise/`.
struct RecordBuilder {
    let map: ColumnMap
    private let listSeparatorByte: UInt8
    // The format's choices and the column positions, looked up once per file.
    private let authorCell: AuthorCell, coauthorCell: CoauthorCell, acceptsShortRows: Bool, shelfFromReadDates: Bool
    private let format: any ImportFormat
    private let readsOwnCells: Bool, titleFromOwnCells: Bool
    private let id, title, author, additionalAuthors, isbn, isbn13, isbnList, asin, publisher, publication: Int?
    private let binding, pages, year, originalYear, rating, shelf, shelves, dateAdded, dateStarted, dateRead: Int?
    private let lastDateRead, readCount, review, notes, owned: Int?
    private let verbatimColumns: [(WritableKeyPath<ParsedRecord, FieldText?>, Int)]
    private let shelfPositions, spoiler, moods: Int?

    init(format: any ImportFormat, map: ColumnMap, listSeparator: Character) {
        self.map = map
        listSeparatorByte = listSeparator.asciiValue ?? UInt8(ascii: ",")
        authorCell = format.authorCell
        coauthorCell = format.coauthorCell
        acceptsShortRows = format.acceptsShortRows
        shelfFromReadDates = format.shelfFromReadDates
        self.format = format
        readsOwnCells = !map.own.isEmpty
        titleFromOwnCells = format.titleFromOwnCells
        id = map[.id]
        title = map[.title]
        author = map[.author]
        additionalAuthors = map[.additionalAuthors]
        isbn = map[.isbn]
        isbn13 = map[.isbn13]
        isbnList = map[.isbnList]
        asin = map[.asin]
        publisher = map[.publisher]
        publication = map[.publication]
        binding = map[.binding]
        pages = map[.pages]
        year = map[.year]
        originalYear = map[.originalYear]
        rating = map[.rating]
        shelf = map[.shelf]
        shelves = map[.shelves]
        dateAdded = map[.dateAdded]
        dateStarted = map[.dateStarted]
        dateRead = map[.dateRead]
        lastDateRead = map[.lastDateRead]
        readCount = map[.readCount]
        review = map[.review]
        notes = map[.notes]
        owned = map[.owned]
        shelfPositions = map[.shelfPositions]
        spoiler = map[.spoiler]
        moods = map[.moods]
        verbatimColumns = Self.verbatim.compactMap { role, path in map[role].map { (path, $0) } }
    }

    /// Why a row could not become a record.
    public struct Rejection: Error, Equatable {
        public var reason: String
        /// `ImportFormat.skipReason`: skipped, not rejected.
        public var skipped = false
    }

    /// Fills `record` in place (returning it in a `Result` measured slower), or returns why the
    /// row is rejected. `repairedFields` counts every column's non-UTF-8 fields; blank extra fields
    /// (a spreadsheet's trailing comma) are ignored, counted in `extraEmptyFields`.
    func build(
        _ row: DelimitedRow, into record: inout ParsedRecord, repairedFields: inout Int,
        extraEmptyFields: inout Int
    ) -> Rejection? {
        if let malformation = row.malformation {
            return Rejection(reason: malformation)
        }
        let shortAllowed = acceptsShortRows && row.count < map.columnCount
        if row.count > map.columnCount && Self.extraFieldsAreEmpty(row, after: map.columnCount) {
            extraEmptyFields += 1
        } else if row.count != map.columnCount && !shortAllowed {
            return Rejection(reason: "expected \(map.columnCount) fields as in the header, found \(row.count)")
        }
        var row = row
        if row.hasNonASCII {
            let invalid = Self.countInvalidFields(row)
            repairedFields += invalid
            if invalid > 0 { row = Self.repaired(row) }
        }
        return row.storage.withUnsafeBufferPointer { bytes in
            build(RowCells(bytes: bytes, ends: row.ends), row, into: &record)
        }
    }

    static func extraFieldsAreEmpty(_ row: DelimitedRow, after count: Int) -> Bool {
        let start = row.range(count).lowerBound
        return row.storage[start...].allSatisfy { $0 == 0x20 || $0 == 0x09 }
    }

    /// Once every cell of `row` is valid UTF-8.
    private func build(_ cells: RowCells, _ row: DelimitedRow, into record: inout ParsedRecord) -> Rejection? {
        let titleRange = cells.range(title)
        guard titleRange != nil || titleFromOwnCells else {
            return Rejection(reason: "empty title")
        }
        record = ParsedRecord(
            cells: row.storage, format: map.format, line: row.line, byteOffset: row.byteOffset,
            byteLength: row.byteLength, title: titleRange.map(FieldText.cell) ?? .string(""))
        record.rowId = cells[id]
        if let titleRange, let parts = SeriesTitle.ranges(in: cells.bytes, title: titleRange) {
            record.titleBase = .cell(parts.base)
            record.series = .cell(parts.series)
            record.seriesPosition = .cell(parts.position)
        }

        var coauthors: [FieldText] = []
        if let range = cells.range(author) {
            switch authorCell {
            case .list(let separators):
                let text = cells.string(range)
                let separator = separators.first { text.contains($0) } ?? separators.first ?? ","
                var names = PersonName.list(text, separator: separator).map(FieldText.string)
                if !names.isEmpty { record.author = names.removeFirst() }
                coauthors = names
            case .invertedName:
                record.author = .string(PersonName.uninverted(PersonName.collapse(cells.string(range))))
            case .name:
                record.author = cells.collapsedName(range)
            }
        }
        if let range = cells.range(additionalAuthors) {
            switch coauthorCell {
            case .invertedList(let separator):
                coauthors += PersonName.list(cells.string(range), separator: separator).map {
                    .string(PersonName.uninverted($0))
                }
            case .list:
                for piece in CellBytes.splitTrimmed(cells.bytes, range, listSeparatorByte) {
                    let name = cells.collapsedName(piece)
                    if name != .string("") { coauthors.append(name) }
                }
            }
        }
        if !coauthors.isEmpty { record.additionalAuthors = coauthors }

        // Best first: the ISBN-13 cell, the single cell, the list.
        var identifiers: [IdentifierCell] = []
        if let range = cells.range(isbn13) { identifiers.append(ISBN.classify(bytes: cells.bytes(range))) }
        if let range = cells.range(isbn) { identifiers.append(ISBN.classify(bytes: cells.bytes(range))) }
        let cellIdentifiers = identifiers.count
        if let text = cells.string(isbnList) {
            for item in text.split(whereSeparator: { $0 == "," || $0 == ";" || $0 == " " }) {
                identifiers.append(ISBN.classify(String(item)))
            }
        }
        if let range = cells.range(asin) { identifiers.append(ISBN.classify(bytes: cells.bytes(range))) }
        if !identifiers.isEmpty {
            record.setISBNs(identifiers, cellIdentifiers: cellIdentifiers)
        }

        record.publisher =
            cells[publisher] ?? cells.string(publication).flatMap(Self.publisher(fromPublication:)).map(FieldText.string)
        record.binding = cells[binding]
        record.pages = cells.range(pages).flatMap { CellValue.count(bytes: cells.bytes($0)) }.flatMap { $0 > 0 ? $0 : nil }
        record.year = cells.range(year).flatMap { ExportDate.year(bytes: cells.bytes($0)) }
        record.originalYear = cells.range(originalYear).flatMap { ExportDate.year(bytes: cells.bytes($0)) }

        record.rating = cells.range(rating).flatMap { CellValue.rating(bytes: cells.bytes($0)) }
        if let range = cells.range(shelves) {
            let pieces = CellBytes.splitTrimmed(cells.bytes, range, listSeparatorByte, FieldText.cell)
            if !pieces.isEmpty { record.shelves = pieces }
        }
        record.dateAdded = cells.range(dateAdded).flatMap { ExportDate.normalise(bytes: cells.bytes($0)) }
        var reads = cells.range(dateRead).map { ExportDate.reads(bytes: cells.bytes($0)) } ?? []
        if reads.isEmpty, let range = cells.range(lastDateRead), let date = ExportDate.normalise(bytes: cells.bytes(range)) {
            reads = [ReadSpan(start: nil, end: date)]
        }
        if let range = cells.range(dateStarted), let start = ExportDate.normalise(bytes: cells.bytes(range)) {
            if reads.count == 1 && reads[0].start == nil {
                reads[0].start = start
            } else if reads.isEmpty {
                reads = [ReadSpan(start: start, end: nil)]
            }
        }
        if !reads.isEmpty { record.reads = reads }
        record.readCount = cells.range(readCount).flatMap { CellValue.count(bytes: cells.bytes($0)) }
        if let range = cells.range(shelf) {
            record.shelf = cells.shelfName(range)
        } else if shelfFromReadDates {
            record.shelf = ShelfName.fromDates(reads).map(FieldText.string)
        }
        record.review = cells.verbatim(review)
        record.notes = cells.verbatim(notes)
        if let range = cells.range(owned) {
            let cell = cells.bytes(range)
            if cell[0] >= 48 && cell[0] <= 57 {
                // A copy count (Goodreads, LibraryThing).
                record.ownedCopies = CellValue.count(bytes: cell)
                if (record.ownedCopies ?? 0) > 0 { record.owned = true }
            } else if CellValue.owned(cells.string(range)) {
                record.owned = true
            }
        }

        if let range = cells.range(shelfPositions) {
            let positions = CellBytes.splitTrimmed(cells.bytes, range, UInt8(ascii: ",")) {
                ShelfPosition.parse(cells.bytes, $0)
            }
            if !positions.isEmpty { record.shelfPositions = positions }
        }
        if let text = cells.string(spoiler), CellValue.owned(text) { record.spoiler = true }
        if let range = cells.range(moods) {
            let pieces = CellBytes.splitTrimmed(cells.bytes, range, UInt8(ascii: ","), FieldText.cell)
            if !pieces.isEmpty { record.moods = pieces }
        }
        for (path, column) in verbatimColumns {
            if let text = cells[column] { record[keyPath: path] = text }
        }
        if readsOwnCells {
            let own = OwnCells(cells: cells, positions: map.own)
            if let reason = self.format.skipReason(own) { return Rejection(reason: reason, skipped: true) }
            if let reason = self.format.readOwnCells(own, into: &record) { return Rejection(reason: reason) }
        }
        return nil
    }

    /// `O'Reilly Media (2006), Edition: Fifth, 1032 pages` → `O'Reilly Media`; `Ally Press` → itself.
    static func publisher(fromPublication text: String) -> String? {
        var end = text.endIndex
        if let paren = text.firstIndex(of: "(") { end = paren }
        if let comma = text[..<end].firstIndex(of: ",") { end = comma }
        let name = String(text[..<end]).trimmingSpaces
        return name.isEmpty ? nil : name
    }

    static func countInvalidFields(_ row: DelimitedRow) -> Int {
        row.storage.withUnsafeBufferPointer { storage in
            // The usual case in one pass: valid UTF-8 and no field starts with a continuation byte,
            // so no sequence spans two fields.
            if TextRepair.isValidUTF8(storage),
                !row.ends.contains(where: { $0 < storage.count && storage[$0] & 0xC0 == 0x80 })
            {
                return 0
            }
            return (0..<row.count).count(where: {
                !TextRepair.isValidUTF8(UnsafeBufferPointer(rebasing: storage[row.range($0)]))
            })
        }
    }

    /// So that every later rule can take cell bytes as text.
    static func repaired(_ row: DelimitedRow) -> DelimitedRow {
        var result = row
        result.storage.removeAll(keepingCapacity: false)
        result.ends.removeAll(keepingCapacity: true)
        row.storage.withUnsafeBufferPointer { storage in
            for index in 0..<row.count {
                let field = UnsafeBufferPointer(rebasing: storage[row.range(index)])
                if TextRepair.isValidUTF8(field) {
                    result.storage.append(contentsOf: field)
                } else {
                    result.storage.append(contentsOf: TextRepair.repair(field))
                }
                result.ends.append(result.storage.count)
            }
        }
        return result
    }
}

/// The cells of a row whose bytes are all valid UTF-8: edges trimmed, empty → nil.
struct RowCells {
    let bytes: UnsafeBufferPointer<UInt8>
    let ends: [Int]

    func range(_ column: Int?) -> Range<Int>? {
        guard let column, column < ends.count else { return nil }
        var start = column == 0 ? 0 : ends[column - 1], end = ends[column]
        while start < end, Self.isEdgeSpace(bytes[start]) { start += 1 }
        while start < end, Self.isEdgeSpace(bytes[end - 1]) { end -= 1 }
        return start < end ? start..<end : nil
    }

    /// The whole cell, edge spaces included, for text a person wrote (a review, notes).
    func verbatim(_ column: Int?) -> FieldText? {
        guard let column, column < ends.count, range(column) != nil else { return nil }
        return .cell((column == 0 ? 0 : ends[column - 1])..<ends[column])
    }

    subscript(column: Int?) -> FieldText? {
        range(column).map(FieldText.cell)
    }

    func string(_ column: Int?) -> String? {
        range(column).map(string)
    }

    func string(_ range: Range<Int>) -> String {
        String(decoding: bytes(range), as: UTF8.self)
    }

    func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[range])
    }

    /// The cell itself when there is nothing to collapse (the usual case).
    func collapsedName(_ range: Range<Int>) -> FieldText {
        if PersonName.isCollapsed(utf8: UnsafeBufferPointer(rebasing: bytes[range])) { return .cell(range) }
        return .string(PersonName.collapse(string(range)))
    }

    /// `ShelfName.normalise`, comparing the canonical spellings as bytes.
    func shelfName(_ range: Range<Int>) -> FieldText? {
        let cell = bytes(range)
        for (name, utf8) in Self.canonicalShelves
        where utf8.count == cell.count && utf8.withUnsafeBufferPointer({ $0.elementsEqual(cell) }) {
            return .string(name)
        }
        return ShelfName.normalise(string(range)).map(FieldText.string)
    }

    /// Compared through `String.UTF8View`, this check measured slower.
    private static let canonicalShelves = [ShelfName.read, ShelfName.toRead, ShelfName.currentlyReading, ShelfName.didNotFinish]
        .map { ($0, Array($0.utf8)) }

    @inline(__always)
    static func isEdgeSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
