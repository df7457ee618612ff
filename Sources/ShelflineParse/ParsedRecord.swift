import ShelflineCore

/// The text of one record field: a trimmed cell written as it is in the row, or a normalised string.
///
/// Why not `String` everywhere: a `String` per pass-through cell (title, review, notes,
/// publisher…) is a heap allocation for every cell over 15 bytes plus a second UTF-8 pass, only to
/// be copied into the JSON line. Cells that are copied unchanged stay byte ranges into
/// `ParsedRecord.cells` and are escaped straight into the line; only values a rule rewrites become
/// strings. (Measured with the other byte-level changes in docs/parse.md, Performance.)
enum FieldText: Equatable {
    /// `cells[range]`: valid UTF-8 (invalid cells were repaired before any range was taken).
    case cell(Range<Int>)
    case string(String)
}

/// A `BookRecord` as the parse stage builds it: the same fields, with pass-through text as ranges
/// into the row's bytes. `BookRecordJSON` writes it exactly as `JSONEncoder` writes the `BookRecord`.
struct ParsedRecord {
    /// The bytes `FieldText.cell` ranges point into.
    var cells: [UInt8] = []
    var format: SourceFormat
    var line: Int
    var rowId: FieldText?
    var byteOffset: Int
    var byteLength: Int
    var title: FieldText
    var titleBase: FieldText?
    var titleIsPlaceholder: Bool?
    var series: FieldText?
    var seriesPosition: FieldText?
    var author: FieldText?
    var additionalAuthors: [FieldText]?
    var isbn13: String?
    var isbn10: String?
    var isbnRaw: String?
    var asin: String?
    var identifiers: [String: String]?
    var publisher: FieldText?
    var binding: FieldText?
    var pages: Int?
    var year: Int?
    var originalYear: Int?
    var rating: Double?
    var shelf: FieldText?
    var shelves: [FieldText]?
    var dateAdded: String?
    var reads: [ReadSpan]?
    var readCount: Int?
    var review: FieldText?
    var notes: FieldText?
    var owned: Bool?
    var ownedCopies: Int?
    var shelfPositions: [ShelfPosition]?
    var spoiler: Bool?
    var recommendedFor: FieldText?
    var recommendedBy: FieldText?
    var purchaseDate: FieldText?
    var purchaseLocation: FieldText?
    var condition: FieldText?
    var conditionDescription: FieldText?
    var bcid: FieldText?
    var contributors: FieldText?
    var moods: [FieldText]?
    var pace: FieldText?
    var characterOrPlotDriven: FieldText?
    var strongCharacterDevelopment: FieldText?
    var loveableCharacters: FieldText?
    var diverseCharacters: FieldText?
    var flawedCharacters: FieldText?
    var contentWarnings: FieldText?
    var contentWarningDescription: FieldText?

    init(cells: [UInt8], format: SourceFormat, line: Int, byteOffset: Int, byteLength: Int, title: FieldText) {
        self.cells = cells
        self.format = format
        self.line = line
        self.byteOffset = byteOffset
        self.byteLength = byteLength
        self.title = title
    }

    /// Sets the ISBNs (and ASIN) from the identifier cells of a row, best first; the first
    /// `cellIdentifiers` are its ISBN cells, the rest list items.
    mutating func setISBNs(_ identifiers: [IdentifierCell], cellIdentifiers: Int? = nil) {
        let resolved = ISBN.resolve(identifiers)
        isbn13 = resolved.isbn13
        isbn10 = resolved.isbn10
        // An ISBN or ISBN-13 cell the record's ISBNs do not show is kept as written, so exports
        // give it back: a check digit that fails, even beside a valid cell (Goodreads writes
        // `="0385535151"` beside `="9780385535151"`), or another edition's ISBN-10 beside the
        // ISBN-13. Never an identifier. A list's odd item only when nothing else was valid.
        isbnRaw = resolved.raw
        for cell in identifiers.prefix(cellIdentifiers ?? identifiers.count) {
            if case .invalid(let raw) = cell {
                isbnRaw = raw
                break
            }
            // The record's ISBN-10 is the first cell's that gives its ISBN-13 (`ISBN.resolve`).
            if case .isbn10(let value) = cell, value != resolved.isbn10, ISBN.thirteen(from: value) != resolved.isbn13 {
                isbnRaw = value
                break
            }
        }
        asin = resolved.asin
    }

    /// The parse-stage fields of `record`, all as strings.
    init(_ record: BookRecord) {
        self.init(
            cells: [], format: record.format, line: record.line, byteOffset: record.byteOffset,
            byteLength: record.byteLength, title: .string(record.title))
        rowId = record.rowId.map(FieldText.string)
        titleBase = record.titleBase.map(FieldText.string)
        titleIsPlaceholder = record.titleIsPlaceholder
        series = record.series.map(FieldText.string)
        seriesPosition = record.seriesPosition.map(FieldText.string)
        author = record.author.map(FieldText.string)
        additionalAuthors = record.additionalAuthors.map { $0.map(FieldText.string) }
        isbn13 = record.isbn13
        isbn10 = record.isbn10
        isbnRaw = record.isbnRaw
        asin = record.asin
        identifiers = record.identifiers
        publisher = record.publisher.map(FieldText.string)
        binding = record.binding.map(FieldText.string)
        pages = record.pages
        year = record.year
        originalYear = record.originalYear
        rating = record.rating
        shelf = record.shelf.map(FieldText.string)
        shelves = record.shelves.map { $0.map(FieldText.string) }
        dateAdded = record.dateAdded
        reads = record.reads
        readCount = record.readCount
        review = record.review.map(FieldText.string)
        notes = record.notes.map(FieldText.string)
        owned = record.owned
        ownedCopies = record.ownedCopies
        shelfPositions = record.shelfPositions
        spoiler = record.spoiler
        recommendedFor = record.recommendedFor.map(FieldText.string)
        recommendedBy = record.recommendedBy.map(FieldText.string)
        purchaseDate = record.purchaseDate.map(FieldText.string)
        purchaseLocation = record.purchaseLocation.map(FieldText.string)
        condition = record.condition.map(FieldText.string)
        conditionDescription = record.conditionDescription.map(FieldText.string)
        bcid = record.bcid.map(FieldText.string)
        contributors = record.contributors.map(FieldText.string)
        moods = record.moods.map { $0.map(FieldText.string) }
        pace = record.pace.map(FieldText.string)
        characterOrPlotDriven = record.characterOrPlotDriven.map(FieldText.string)
        strongCharacterDevelopment = record.strongCharacterDevelopment.map(FieldText.string)
        loveableCharacters = record.loveableCharacters.map(FieldText.string)
        diverseCharacters = record.diverseCharacters.map(FieldText.string)
        flawedCharacters = record.flawedCharacters.map(FieldText.string)
        contentWarnings = record.contentWarnings.map(FieldText.string)
        contentWarningDescription = record.contentWarningDescription.map(FieldText.string)
    }
}
