import ShelflineCore

/// Turns one data row of a known export into a `BookRecord`, applying the normalisation rules.
///
/// Every rule lives in a small type under `Normalise/`; this type only knows which column feeds
/// which rule, and the few places where formats differ (LibraryThing's `Last, First` authors and
/// shelf derived from its read date, StoryGraph's author list).
public struct RecordBuilder {
    public let map: ColumnMap
    let listSeparator: Character
    // Column positions, looked up once per file.
    private let id, title, author, additionalAuthors, isbn, isbn13, isbnList, asin, publisher, publication: Int?
    private let binding, pages, year, originalYear, rating, shelf, shelves, dateAdded, dateStarted, dateRead: Int?
    private let lastDateRead, readCount, review, notes, owned: Int?

    public init(map: ColumnMap, listSeparator: Character = ",") {
        self.map = map
        self.listSeparator = listSeparator
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
    }

    /// Why a row could not become a record.
    public struct Rejection: Error, Equatable {
        public var reason: String
    }

    /// The record for `row`, or why it is rejected. `repairedFields` grows by the number of this
    /// row's fields (any column, used or not) that held bytes that were not UTF-8.
    public func build(_ row: DelimitedRow, repairedFields: inout Int) -> Result<BookRecord, Rejection> {
        if let malformation = row.malformation {
            return .failure(Rejection(reason: malformation))
        }
        // Known exports write every column on every row, so a short row there means damage. Hand-made
        // CSVs (generic) often leave trailing empty cells out: there missing cells read as empty.
        let shortAllowed = map.format == .generic && row.count < map.columnCount
        guard row.count == map.columnCount || shortAllowed else {
            return .failure(Rejection(reason: "expected \(map.columnCount) fields as in the header, found \(row.count)"))
        }
        if row.hasNonASCII {
            repairedFields += Self.countInvalidFields(row)
        }
        let cells = RowCells(row: row)
        guard let titleText = cells[title] else {
            return .failure(Rejection(reason: "empty title"))
        }
        let format = map.format
        var record = BookRecord(format: format, line: row.line, byteOffset: row.byteOffset, byteLength: row.byteLength,
                                title: titleText)
        record.rowId = cells[id]
        if let parsed = SeriesTitle(parsing: titleText) {
            record.titleBase = parsed.base
            record.series = parsed.series
            record.seriesPosition = parsed.position
        }

        // Authors.
        var coauthors: [String] = []
        if let text = cells[author] {
            if format == .storygraph {
                var names = PersonName.list(text)
                if !names.isEmpty { record.author = names.removeFirst() }
                coauthors = names
            } else {
                let name = PersonName.collapse(text)
                record.author = format == .librarything ? PersonName.uninverted(name) : name
            }
        }
        if let text = cells[additionalAuthors] {
            if format == .librarything {
                coauthors += PersonName.list(text, separator: "|").map(PersonName.uninverted)
            } else {
                coauthors += PersonName.list(text, separator: format == .generic ? listSeparator : ",")
            }
        }
        if !coauthors.isEmpty { record.additionalAuthors = coauthors }

        // Identifiers: the ISBN-13 cell first, then the single cell, then the list.
        var identifiers: [IdentifierCell] = []
        if let text = cells[isbn13] { identifiers.append(ISBN.classify(text)) }
        if let text = cells[isbn] { identifiers.append(ISBN.classify(text)) }
        if let text = cells[isbnList] {
            for item in text.split(whereSeparator: { $0 == "," || $0 == ";" || $0 == " " }) {
                identifiers.append(ISBN.classify(String(item)))
            }
        }
        if let text = cells[asin] { identifiers.append(ISBN.classify(text)) }
        if !identifiers.isEmpty {
            let resolved = ISBN.resolve(identifiers)
            record.isbn13 = resolved.isbn13
            record.isbn10 = resolved.isbn10
            record.isbnRaw = resolved.raw
            record.asin = resolved.asin
        }

        // Edition.
        record.publisher = cells[publisher] ?? cells[publication].flatMap(Self.publisher(fromPublication:))
        record.binding = cells[binding]
        record.pages = cells[pages].flatMap { CellValue.count($0) }.flatMap { $0 > 0 ? $0 : nil }
        record.year = cells[year].flatMap { ExportDate.year($0) }
        record.originalYear = cells[originalYear].flatMap { ExportDate.year($0) }

        // Reader.
        record.rating = cells[rating].flatMap { CellValue.rating($0) }
        let addedShelves = cells[shelves].map { ShelfName.list($0, separator: format == .generic ? listSeparator : ",") } ?? []
        if !addedShelves.isEmpty { record.shelves = addedShelves }
        record.dateAdded = cells[dateAdded].flatMap { ExportDate.normalise($0) }
        var reads = cells[dateRead].map { ExportDate.reads($0) } ?? []
        if reads.isEmpty, let text = cells[lastDateRead], let date = ExportDate.normalise(text) {
            reads = [ReadSpan(start: nil, end: date)]
        }
        if let text = cells[dateStarted], let start = ExportDate.normalise(text) {
            if reads.count == 1 && reads[0].start == nil {
                reads[0].start = start
            } else if reads.isEmpty {
                reads = [ReadSpan(start: start, end: nil)]
            }
        }
        if !reads.isEmpty { record.reads = reads }
        record.readCount = cells[readCount].flatMap { CellValue.count($0) }
        if let text = cells[shelf] {
            record.shelf = ShelfName.normalise(text)
        } else if format == .librarything, reads.contains(where: { $0.end != nil }) {
            // LibraryThing has no reading state; a read date says the book was read.
            record.shelf = ShelfName.read
        } else if format == .librarything, reads.contains(where: { $0.start != nil }) {
            record.shelf = ShelfName.currentlyReading
        }
        record.review = cells[review]
        record.notes = cells[notes]
        if let text = cells[owned], CellValue.owned(text) { record.owned = true }
        return .success(record)
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
            var invalid = 0
            for index in 0..<row.count {
                let range = row.range(index)
                if !TextRepair.isValidUTF8(UnsafeBufferPointer(rebasing: storage[range])) { invalid += 1 }
            }
            return invalid
        }
    }
}

/// Text of a row's cells: edges trimmed, empty → nil, invalid bytes repaired.
struct RowCells {
    let row: DelimitedRow

    subscript(column: Int?) -> String? {
        guard let column, column < row.count else { return nil }
        var range = row.range(column)
        return row.storage.withUnsafeBufferPointer { storage -> String? in
            while range.lowerBound < range.upperBound, Self.isEdgeSpace(storage[range.lowerBound]) {
                range = (range.lowerBound + 1)..<range.upperBound
            }
            while range.lowerBound < range.upperBound, Self.isEdgeSpace(storage[range.upperBound - 1]) {
                range = range.lowerBound..<(range.upperBound - 1)
            }
            guard !range.isEmpty else { return nil }
            let bytes = UnsafeBufferPointer(rebasing: storage[range])
            if !row.hasNonASCII { return String(decoding: bytes, as: UTF8.self) }
            var repaired = false
            return TextRepair.decode(bytes, repaired: &repaired)
        }
    }

    @inline(__always)
    static func isEdgeSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
