import ShelflineCore

/// Turns one data row of a known export into a `BookRecord`, applying the normalisation rules.
///
/// Every rule lives in a small type under `Normalise/`; this type only knows which column feeds
/// which rule; where formats differ (how authors are written, a shelf derived from read dates) it
/// asks the format (`ImportFormat`).
struct RecordBuilder {
    let map: ColumnMap
    /// The separator of list cells (additional authors, shelves), as the byte they are split on.
    private let listSeparatorByte: UInt8
    // The format's choices, looked up once per file.
    private let authorCell: AuthorCell, coauthorCell: CoauthorCell, acceptsShortRows: Bool, shelfFromReadDates: Bool
    private let format: any ImportFormat
    /// Whether the format reads cells of its own (then `readOwnCells` runs for every row).
    private let readsOwnCells: Bool, titleFromOwnCells: Bool
    // Column positions, looked up once per file.
    private let id, title, author, additionalAuthors, isbn, isbn13, isbnList, asin, publisher, publication: Int?
    private let binding, pages, year, originalYear, rating, shelf, shelves, dateAdded, dateStarted, dateRead: Int?
    private let lastDateRead, readCount, review, notes, owned: Int?
    /// The columns copied verbatim into a record field of the same name (see `verbatim`).
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
        /// The source marks the row as not to be imported (`ImportFormat.skipReason`): skipped, not rejected.
        public var skipped = false
    }

    /// Makes `record` the record for `row`, or returns why the row is rejected. `repairedFields`
    /// grows by the number of this row's fields (any column, used or not) that held bytes that
    /// were not UTF-8. (The record is filled in place: returning it in a `Result` cost ~5% of the
    /// stage's CPU time in copies of its ~30 fields, perf on the 200,000-row bench file.)
    ///
    /// A row with more fields than the header whose extra fields are all empty (blank or spaces: a
    /// trailing comma a spreadsheet added) is read as if they were not there; `extraEmptyFields`
    /// counts such rows.
    func build(
        _ row: DelimitedRow, into record: inout ParsedRecord, repairedFields: inout Int,
        extraEmptyFields: inout Int
    ) -> Rejection? {
        if let malformation = row.malformation {
            return Rejection(reason: malformation)
        }
        // Known exports write every column on every row, so a short row there means damage. Hand-made
        // CSVs (generic) often leave trailing empty cells out: there missing cells read as empty.
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

    /// True when every field of `row` from index `count` on holds nothing but spaces or tabs.
    static func extraFieldsAreEmpty(_ row: DelimitedRow, after count: Int) -> Bool {
        let start = row.range(count).lowerBound
        return row.storage[start...].allSatisfy { $0 == 0x20 || $0 == 0x09 }
    }

    /// `build` once every cell of `row` is valid UTF-8.
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

        // Authors.
        var coauthors: [FieldText] = []
        if let range = cells.range(author) {
            switch authorCell {
            case .list(let separators):
                let text = cells.string(range)
                // The first declared separator the cell holds; a cell with none is one name whichever is used.
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

        // Identifiers: the ISBN-13 cell first, then the single cell, then the list.
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

        // Edition.
        record.publisher =
            cells[publisher] ?? cells.string(publication).flatMap(Self.publisher(fromPublication:)).map(FieldText.string)
        record.binding = cells[binding]
        record.pages = cells.range(pages).flatMap { CellValue.count(bytes: cells.bytes($0)) }.flatMap { $0 > 0 ? $0 : nil }
        record.year = cells.range(year).flatMap { ExportDate.year(bytes: cells.bytes($0)) }
        record.originalYear = cells.range(originalYear).flatMap { ExportDate.year(bytes: cells.bytes($0)) }

        // Reader.
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
        } else if shelfFromReadDates, reads.contains(where: { $0.end != nil }) {
            // The format has no reading state; a read date says the book was read.
            record.shelf = .string(ShelfName.read)
        } else if shelfFromReadDates, reads.contains(where: { $0.start != nil }) {
            record.shelf = .string(ShelfName.currentlyReading)
        }
        record.review = cells.verbatim(review)
        record.notes = cells.verbatim(notes)
        if let range = cells.range(owned) {
            let cell = cells.bytes(range)
            if cell[0] >= 48 && cell[0] <= 57 {
                // A copy count (Goodreads, LibraryThing): kept as a count, and owned when above zero.
                record.ownedCopies = CellValue.count(bytes: cell)
                if (record.ownedCopies ?? 0) > 0 { record.owned = true }
            } else if CellValue.owned(cells.string(range)) {
                record.owned = true
            }
        }

        // The formats' own reader cells.
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
        // The record starts with every field nil: only a cell with text is written.
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

    /// Fields of `row` holding bytes that are not UTF-8.
    static func countInvalidFields(_ row: DelimitedRow) -> Int {
        row.storage.withUnsafeBufferPointer { storage in
            // The usual case in one pass: the row's bytes are valid UTF-8 and no field starts with a
            // continuation byte (10xxxxxx), so no sequence spans two fields and every field is valid.
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

    /// `row` with every field that is not valid UTF-8 repaired (`TextRepair`), so that every later
    /// rule can take cell bytes as text.
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

    /// The byte range of `column`'s cell, without edge spaces; nil when absent or empty.
    func range(_ column: Int?) -> Range<Int>? {
        guard let column, column < ends.count else { return nil }
        var start = column == 0 ? 0 : ends[column - 1], end = ends[column]
        while start < end, Self.isEdgeSpace(bytes[start]) { start += 1 }
        while start < end, Self.isEdgeSpace(bytes[end - 1]) { end -= 1 }
        return start < end ? start..<end : nil
    }

    /// `column`'s whole cell, edge spaces and line breaks included, when it holds anything else:
    /// for the cells a person wrote (a review, notes), kept as they were.
    func verbatim(_ column: Int?) -> FieldText? {
        guard let column, column < ends.count, range(column) != nil else { return nil }
        return .cell((column == 0 ? 0 : ends[column - 1])..<ends[column])
    }

    /// `column`'s cell as it will be written.
    subscript(column: Int?) -> FieldText? {
        range(column).map(FieldText.cell)
    }

    /// `column`'s cell as a string, for the rules that rewrite it.
    func string(_ column: Int?) -> String? {
        range(column).map(string)
    }

    func string(_ range: Range<Int>) -> String {
        String(decoding: bytes(range), as: UTF8.self)
    }

    func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: bytes[range])
    }

    /// A name with its whitespace runs collapsed (`PersonName.collapse`): the cell itself when it
    /// has none (the usual case).
    func collapsedName(_ range: Range<Int>) -> FieldText {
        if PersonName.isCollapsed(utf8: UnsafeBufferPointer(rebasing: bytes[range])) { return .cell(range) }
        return .string(PersonName.collapse(string(range)))
    }

    /// The exclusive shelf (`ShelfName.normalise`), comparing the canonical spellings as bytes.
    func shelfName(_ range: Range<Int>) -> FieldText? {
        let cell = bytes(range)
        for (name, utf8) in Self.canonicalShelves
        where utf8.count == cell.count && utf8.withUnsafeBufferPointer({ $0.elementsEqual(cell) }) {
            return .string(name)
        }
        return ShelfName.normalise(string(range)).map(FieldText.string)
    }

    /// The canonical spellings with their bytes: compared through `String.UTF8View`, this check was
    /// a measurable part of a row's time (docs/performance.md).
    private static let canonicalShelves = [ShelfName.read, ShelfName.toRead, ShelfName.currentlyReading, ShelfName.didNotFinish]
        .map { ($0, Array($0.utf8)) }

    @inline(__always)
    static func isEdgeSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
