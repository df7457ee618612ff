import Foundation
import PropertyBased
import ShelflineCore
import TestSupport
import TestTraits
import Testing

@testable import ShelflineLibrary
@testable import ShelflineParse

/// The export writers against the real parser: a library written as Goodreads or StoryGraph CSV and
/// parsed back gives the same books (every field the format carries), whatever the cells hold.
@Suite(.offCooperativePool) struct ExportRoundTripTests {
    /// Cells that break naive CSV writers and readers, spreadsheets, and text handling.
    static let hostile: [String] = [
        ",", "\"", "\"\"", "\n", "\r\n", "a,b", "say \"hi\"", "<b>bold</b>", "<br/>", "<spoiler>x</spoiler>", "&amp;",
        "=1+2", "+SUM(A1:A2)", "-2", "@cmd", "=HYPERLINK(\"http://x\")", "\u{202E}", "שלום", "مرحبا", "😀", "👩‍👩‍👧‍👦",
        "é", "e\u{301}", "'", ";", "\t", "x", "Title", " ", "  ", "#", "(", ")",
    ]

    static let text = Gen<String?>.element(of: hostile).map { $0! }.array(of: 0...6).map { $0.joined() }
    static let texts = text.array(of: 14)
    static let numbers = Gen.int(in: 0...10_000).array(of: 16)

    /// What the parser makes of a cell: edges trimmed (spaces, tabs, line breaks); empty is absent.
    static func cell(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: CharacterSet(charactersIn: " \t\r\n"))
        return trimmed.isEmpty ? nil : trimmed
    }

    /// A name as the parser keeps it: one line, single spaces; no commas where `inList` (a list
    /// separator: Additional Authors, StoryGraph's Authors), commas kept in Goodreads' one `Author`.
    static func name(_ text: String, inList: Bool = true) -> String? {
        let text = inList ? text.replacingOccurrences(of: ",", with: " ") : text
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        let joined = words.joined(separator: " ")
        return joined.isEmpty ? nil : joined
    }

    static func isoDate(_ number: Int) -> String {
        String(format: "%04d-%02d-%02d", 1990 + number % 35, 1 + number % 12, 1 + number % 28)
    }

    static let seriesNames = ["Alex Stern", "Dune Chronicles", "QualityLand", "The Expanse", "The Champloo Mixes, Mix"]
    static let positions = ["1", "2", "2.5", "1-3", "12"]
    static let subtitles = ["", ": A Novel", " - Fuck You Happiness", ": Book Two", "; or, the Whale"]
    /// Valid ISBN-13s (a 979 one has no ISBN-10), another edition's ISBN-10, cells whose check fails.
    static let isbn13s = ["9780441172719", "9781250313072", "9780306406157", "9798886450026"]
    static let otherEditionISBN10 = "0385535155"
    static let invalidISBNs = ["0152061548", "0553105574175", "9780743536"]

    /// A book with every field `format` carries set from the generated cells, as the library holds
    /// it after importing the row that writes it: the title cell as written when its series marker
    /// reads otherwise than Goodreads' usual `(Series, #n)`, an ISBN cell the ISBNs do not show kept
    /// as written (docs/export.md).
    static func book(_ cells: [String], _ numbers: [Int], format: ExportFormat) -> LibraryBook {
        // `#` stays; parentheses go, so only the marker below is a series group.
        let base =
            cell(cells[0].filter { $0 != "(" && $0 != ")" } + subtitles[numbers[13] % subtitles.count]).flatMap(cell) ?? "T"
        var book = LibraryBook(id: "b0123456789abcdef", title: base)
        if numbers[12] % 3 != 0 {
            let series = seriesNames[numbers[12] % seriesNames.count], position = positions[numbers[14] % positions.count]
            let comma = numbers[12] % 3 == 1
            // Without the comma before `#`, a label after the series' last comma is no part of its
            // name (`The Champloo Mixes, Mix #1`).
            book.series = comma ? series : series.components(separatedBy: ", ").dropLast().joined(separator: ", ")
            if book.series!.isEmpty { book.series = series }
            book.seriesPosition = position
            let written = comma ? "\(base) (\(series), #\(position))" : "\(base) (\(series) #\(position))"
            book.titleAsWritten = written == "\(base) (\(book.series!), #\(position))" ? nil : written
        }
        book.author = name(cells[1], inList: format == .storygraph)
        book.additionalAuthors = book.author == nil ? nil : name(cells[2]).map { [$0] }
        switch numbers[0] % 6 {
        case 1, 4, 5:
            book.isbn13 = isbn13s[numbers[15] % 3]
            book.isbn10 = ISBN.ten(from: book.isbn13!)  // the parser derives it, as import does
            // Goodreads' two cells: the ISBN cell another edition's, or one whose check fails.
            if format == .goodreads && numbers[0] % 6 == 4 { book.isbnAsWritten = otherEditionISBN10 }
            if format == .goodreads && numbers[0] % 6 == 5 { book.isbnAsWritten = invalidISBNs[0] }
        case 2:
            book.isbn13 = isbn13s[3]
        case 3:
            book.isbnAsWritten = invalidISBNs[numbers[15] % invalidISBNs.count]
        default:
            break
        }
        // An ASIN has a cell where no ISBN-10 (Goodreads) or no ISBN (StoryGraph) takes it.
        let asinCellFree =
            format == .goodreads
            ? book.isbn10 == nil && (book.isbnAsWritten.map { $0.count >= 11 } ?? true)
            : book.isbn13 == nil && book.isbn10 == nil && book.isbnAsWritten == nil
        if asinCellFree && numbers[15] % 2 == 0 { book.asin = "B07MNWKF2M" }
        book.binding = cell(cells[4])
        book.shelf = ["read", "to-read", "currently-reading", "did-not-finish"][numbers[1] % 4]
        let shelves = ["fav", "sci-fi", "z-series", "kindle"].filter { _ in numbers[2] % 3 != 0 }.prefix(numbers[2] % 4)
        book.shelves = shelves.isEmpty ? nil : Array(shelves)
        book.dateAdded = isoDate(numbers[3])
        book.review = cell(cells[5]) == nil ? nil : cells[5]  // kept as written, edge spaces and all
        if numbers[14] % 2 == 0 {
            book.review =
                "<p>A <b>review</b> with HTML:<br/><spoiler>the end</spoiler> &amp; <a href=\"x\">a link</a></p>"
                + (book.review ?? "")
        }
        book.readCount = numbers[4] % 3 == 0 ? nil : numbers[4] % 5
        switch format {
        case .goodreads:
            book.publisher = cell(cells[3])
            book.pages = numbers[5] % 900 + 1
            book.year = 1900 + numbers[6] % 125
            book.originalYear = 1800 + numbers[7] % 200
            book.rating = numbers[8] % 6 == 0 ? nil : Double(numbers[8] % 5 + 1)
            book.reads = numbers[9] % 2 == 0 ? nil : [ReadSpan(end: isoDate(numbers[9]))]
            book.notes = cell(cells[6]) == nil ? nil : cells[6]
            book.spoiler = book.review != nil && numbers[10] % 2 == 0 ? true : nil
            book.ownedCopies = numbers[11] % 3
            book.owned = book.ownedCopies! > 0 ? true : nil
            book.shelfPositions = book.shelves?.reversed().enumerated().map { ShelfPosition(shelf: $1, position: $0 * 7 + 1) }
        case .storygraph:
            book.rating = numbers[8] % 6 == 0 ? nil : Double(numbers[8] % 20 + 1) / 4
            book.reads =
                numbers[9] % 3 == 0
                ? nil
                : [ReadSpan(start: isoDate(numbers[9]), end: isoDate(numbers[9] + 40)), ReadSpan(end: isoDate(numbers[9] + 400))]
                    .sorted { ($0.end ?? "") < ($1.end ?? "") }
            book.owned = numbers[11] % 2 == 0 ? true : nil
            book.contributors = cell(cells[6])
            book.moods = [cells[7], cells[8]].compactMap { name($0) }
            if book.moods!.isEmpty { book.moods = nil }
            book.pace = cell(cells[9])
            book.characterOrPlotDriven = cell(cells[10])
            book.strongCharacterDevelopment = cell(cells[11])
            book.loveableCharacters = cell(cells[12])
            book.diverseCharacters = ["Yes", "No", "It's complicated"][numbers[10] % 3]
            book.flawedCharacters = cell(cells[3])
            book.contentWarnings = cell(cells[13])
            book.contentWarningDescription = cell(cells[13] + cells[12])
        case .ndjson:
            break
        }
        return book
    }

    /// Exports `book` as `format`, imports the file with the parse stage and the merge stage (its
    /// own join of parse's texts and its fold) into an empty library; returns the book and the file.
    static func roundTrip(_ book: LibraryBook, format: ExportFormat) throws -> (LibraryBook, String) {
        let temp = TemporaryDirectory("export-roundtrip")
        let library = temp.file("library.ndjson")
        try Data(book.jsonLine + [0x0A]).write(to: URL(fileURLWithPath: library))
        let csv = temp.file("export.csv")
        let file = try AtomicFile(path: csv)
        try LibraryExport(format: format).write(library: library, to: file)
        try file.commit()
        let parsed = temp.file("parsed.ndjson.gz"), report = temp.file("parse-report.json")
        let parse = try ParseStage(
            job: StageJob(
                inputs: [.export: csv], outputs: [.records: parsed, .rejects: temp.file("rejects.ndjson.gz"), .report: report],
                arguments: ParseStage.Arguments())
        ).run()
        try writeJSONFile(parse, to: report)
        let text = try String(contentsOfFile: csv, encoding: .utf8)
        try #require(parse.rowsWritten == 1, "row rejected: \(text)")
        let workspace = Workspace(root: temp.file("ws"))
        _ = try MergeStage.run(
            StageJob(
                inputs: [.records: parsed, .parseReport: report, .rejects: temp.file("rejects.ndjson.gz")],
                outputs: [
                    .report: temp.file("merge-report.json"), .ledger: temp.file("ledger.ndjson.gz"),
                    .review: temp.file("review.json"), .failedRows: temp.file("failed-rows.csv"),
                ], arguments: MergeStage.Arguments(importId: "again")),
            workspace: workspace)
        let books = try NDJSONReader<LibraryBook>(path: workspace.libraryFile).readAll()
        try #require(books.count == 1, "\(books.count) books from one row: \(text)")
        return (books[0], text)
    }

    /// The book's fields but those docs/export.md lists as not carried by `format`.
    static func carried(_ book: LibraryBook, _ format: ExportFormat) throws -> [String: String] {
        let notCarried = try ExportDocs.notCarried(format.rawValue)
        let object = try JSONSerialization.jsonObject(with: Data(book.jsonLine)) as! [String: Any]
        var fields: [String: String] = [:]
        for (key, value) in object where !notCarried.contains(key) {
            fields[key] = String(
                decoding: try JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys]), as: UTF8.self)
        }
        return fields
    }

    func check(_ cells: [String], _ numbers: [Int], _ format: ExportFormat) throws {
        let book = Self.book(cells, numbers, format: format)
        let (back, text) = try Self.roundTrip(book, format: format)
        let before = try Self.carried(book, format), after = try Self.carried(back, format)
        let differing = Set(before.keys).union(after.keys).sorted().filter { before[$0] != after[$0] }
            .map { "\($0): \(before[$0] ?? "absent") → \(after[$0] ?? "absent")" }
        #expect(differing.isEmpty, "\(differing.joined(separator: "\n"))\nfile:\n\(text)")
    }

    @Test func hostileCellsSurviveAGoodreadsRoundTrip() async {
        await propertyCheck(count: 150, input: Self.texts, Self.numbers) { cells, numbers in
            try check(cells, numbers, .goodreads)
        }
    }

    @Test func hostileCellsSurviveAStoryGraphRoundTrip() async {
        await propertyCheck(count: 150, input: Self.texts, Self.numbers) { cells, numbers in
            try check(cells, numbers, .storygraph)
        }
    }

    @Test(arguments: [(3.5, 4), (3.25, 3), (3.75, 4), (0.25, 1), (4.5, 5), (5.0, 5), (1.0, 1)])
    func fractionalRatingsRoundHalfUpToAWholeStar(rating: Double, stars: Int) {
        #expect(ExportCells.wholeStars(rating) == stars)
    }

    @Test func unratedIsZeroInGoodreadsAndEmptyInStoryGraph() {
        #expect(ExportCells.wholeStars(nil) == 0)
        #expect(ExportCells.stars(nil) == nil)
        #expect(ExportCells.stars(3.75) == "3.75" && ExportCells.stars(4) == "4")
    }

    @Test(arguments: [
        ("Frank Herbert", "Herbert, Frank"), ("Donald A. Norman", "Norman, Donald A."), ("Plato", "Plato, Plato"),
        ("Walter M. Miller Jr.", "Jr., Walter M. Miller"), ("Akala", "Akala, Akala"),
    ])
    func authorLastFirstIsGoodreadsLastWordFirst(name: String, lastFirst: String) {
        #expect(ExportCells.lastFirst(name) == lastFirst)
    }

    @Test func goodreadsRowQuotesOnlyWhatNeedsIt() {
        var book = LibraryBook(id: "b0000000000000001", title: "Ninth House")
        book.series = "Alex Stern"
        book.seriesPosition = "1"
        book.author = "Leigh Bardugo"
        book.isbn10 = "1250313074"
        book.isbn13 = "9781250313072"
        book.shelf = "to-read"
        book.shelves = ["to-read"]
        book.shelfPositions = [ShelfPosition(shelf: "to-read", position: 336)]
        book.dateAdded = "2025-06-27"
        book.ownedCopies = 0
        book.provenance = [Contribution(importId: "i", format: .goodreads, lines: [5], rowIds: ["43263680"], fields: ["created"])]
        var line = CSVLine()
        GoodreadsExport.write(book, to: &line)
        let expected =
            #"43263680,"Ninth House (Alex Stern, #1)",Leigh Bardugo,"Bardugo, Leigh",,"=""1250313074""","=""9781250313072""",0,,,,,,,,2025/06/27,to-read,to-read (#336),to-read,,,,,0"#
        #expect(String(decoding: line.bytes, as: UTF8.self) == expected + "\n")
    }

    /// The headers come from codegen/fields.json and the cells from the writers: each is the
    /// format's own header (the example's and StoryGraph's), and a line has a cell per column.
    @Test(.bug(id: 37)) func exportHeadersAreTheFormatsOwnAndLinesFillEveryColumn() throws {
        let example = try String(
            contentsOfFile: ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv", encoding: .utf8)
        let exampleHeader = String(example.prefix { $0 != "\n" })
        #expect(GoodreadsExport.header.joined(separator: ",") == exampleHeader)
        let storyGraphHeader: String =
            "Title,Authors,Contributors,ISBN/UID,Format,Read Status,Date Added,Last Date Read,Dates Read,Read Count,"
            + "Moods,Pace,Character- or Plot-Driven?,Strong Character Development?,Loveable Characters?,"
            + "Diverse Characters?,Flawed Characters?,Star Rating,Review,Content Warnings,Content Warning Description,"
            + "Tags,Owned?"
        #expect(StoryGraphExport.header.joined(separator: ",") == storyGraphHeader)
        let book = LibraryBook(id: "b0123456789abcdef", title: "T")
        var goodreads = CSVLine(), storyGraph = CSVLine()
        GoodreadsExport.write(book, to: &goodreads)
        StoryGraphExport.write(book, to: &storyGraph)
        #expect(goodreads.bytes.count { $0 == UInt8(ascii: ",") } + 1 == GoodreadsExport.header.count)
        #expect(storyGraph.bytes.count { $0 == UInt8(ascii: ",") } + 1 == StoryGraphExport.header.count)
    }

    @Test func everyLibraryFieldIsDescribedByTheSchema() throws {
        var book = LibraryBook(id: "b0123456789abcdef", title: "T")
        // Every optional field set: a field the schema does not list fails `additionalProperties`.
        let mirror = Mirror(reflecting: book)
        var filled = try Self.filled(book)
        filled["keys"] = ["isbn:9780441172719"]
        let data = try JSONSerialization.data(withJSONObject: filled)
        let temp = TemporaryDirectory("schema")
        try data.write(to: URL(fileURLWithPath: temp.file("book.ndjson")))
        book = try JSONDecoder().decode(LibraryBook.self, from: data)
        #expect(
            Mirror(reflecting: book).children.allSatisfy { child in
                guard let optional = child.value as? any OptionalProtocol else { return true }
                return optional.isSome
            }, "every field filled: \(mirror.children.count)")
        try SchemaFile.validate(temp.file("book.ndjson"))
    }

    @Test func libraryLineScanDecodesWhatJSONDecoderDecodes() async throws {
        let full = try JSONDecoder().decode(
            LibraryBook.self,
            from: JSONSerialization.data(
                withJSONObject: Self.filled(
                    LibraryBook(id: "b0123456789abcdef", title: "T \"quoted\" é"))))
        for book in [full, LibraryBook(id: "b0000000000000001", title: "Bare")] {
            let line = book.jsonLine
            let scanned = line.withUnsafeBytes { LibraryBookScan.scan($0) }
            #expect(scanned == book)
        }
        await propertyCheck(count: 100, input: Self.texts, Self.numbers) { cells, numbers in
            for format in [ExportFormat.goodreads, .storygraph] {
                let book = Self.book(cells, numbers, format: format)
                let line = book.jsonLine
                let decoded = try JSONDecoder().decode(LibraryBook.self, from: Data(line))
                #expect(line.withUnsafeBytes { LibraryBookScan.scan($0) } == decoded)
            }
        }
        // A key it does not know is left to JSONDecoder (nil), not dropped.
        #expect(
            #"{"id":"b1","keys":[],"provenance":[],"title":"T","someday":1}"#.utf8.withContiguousStorageIfAvailable {
                LibraryBookScan.scan(UnsafeRawBufferPointer($0))
            }! == nil)
    }

    @Test func libraryLineScanOfSomeFieldsDecodesOnlyThose() throws {
        var full = try JSONDecoder().decode(
            LibraryBook.self,
            from: JSONSerialization.data(
                withJSONObject: Self.filled(
                    LibraryBook(id: "b0123456789abcdef", title: "T"))))
        full.keys = ["isbn:9780441172719"]
        let fields = LibraryBookScan.Field.mask(of: ["shelf", "reads", "rating", "pages", "owned", "nonsense"])
        let shelf = LibraryBookScan.Field.mask(of: ["shelf"])
        var expected = LibraryBook(id: full.id, title: full.title)
        (expected.shelf, expected.reads, expected.rating, expected.pages, expected.owned) = (
            full.shelf, full.reads, full.rating, full.pages, full.owned
        )
        #expect(full.jsonLine.withUnsafeBytes { LibraryBookScan.scan($0, only: fields) } == expected)
        // Members it does not know are skipped when only some are asked for, left to JSONDecoder otherwise.
        let unknown = #"{"id":"b1","keys":[],"provenance":[],"shelf":"read","someday":{"a":[1]},"title":"T"}"#
        var shelved = LibraryBook(id: "b1", title: "T")
        shelved.shelf = "read"
        #expect(Array(unknown.utf8).withUnsafeBytes { LibraryBookScan.scan($0, only: shelf) } == shelved)
        // A member name with an escape is JSONDecoder's to read, asked for or not.
        let escaped = #"{"id":"b1","keys":[],"provenance":[],"shel\u0066":"read","title":"T"}"#
        #expect(Array(escaped.utf8).withUnsafeBytes { LibraryBookScan.scan($0) } == nil)
        #expect(Array(escaped.utf8).withUnsafeBytes { LibraryBookScan.scan($0, only: shelf) } == nil)
        #expect(try JSONDecoder().decode(LibraryBook.self, from: Data(escaped.utf8)) == shelved)
    }

    /// A JSON object with a plausible value for every `LibraryBook` field.
    static func filled(_ book: LibraryBook) throws -> [String: Any] {
        // Every text field of the table of fields (codegen/fields.json) the literal below leaves out.
        let table = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: ExecutableRunner.repositoryRoot + "/codegen/fields.json")))
        let strings = ((table as? [String: Any])?["fields"] as? [[String: Any]] ?? []).filter {
            ($0["in"] as? [String])?.contains("library") == true && $0["type"] as? String == "String"
        }.compactMap { $0["name"] as? String }
        var object: [String: Any] = [
            "id": book.id, "title": book.title, "keys": [String](), "isbn13": "9780441172719",
            "isbn10": "0441172717", "pages": 10, "year": 2000, "originalYear": 1965, "coverId": 12,
            "coverURL": "https://covers.example/b/12.jpg",
            "metadataFields": ["coverId"], "shelves": ["fav"], "rating": 3.75, "dateAdded": "2024-01-02",
            "reads": [["start": "2024-01-01", "end": "2024-01-09"]], "readCount": 1, "owned": true,
            "ownedCopies": 2, "shelfPositions": [["shelf": "fav", "position": 3]], "spoiler": true,
            "moods": ["dark"], "additionalAuthors": ["A B"], "enrichment": "matchedByIsbn",
            "needsReview": true, "reviewDecision": "accepted", "identifiers": ["goodreads": "1"],
            "provenance": [
                [
                    "importId": "i", "format": "goodreads", "lines": [2], "rowIds": ["1"],
                    "fields": ["created"],
                ]
            ],
        ]
        for key in strings where object[key] == nil { object[key] = "x" }
        return object
    }
}

protocol OptionalProtocol { var isSome: Bool { get } }
extension Optional: OptionalProtocol { var isSome: Bool { self != nil } }

/// `docs/library-book.schema.json` checked on the lines of `ndjson`.
enum SchemaFile {
    static func validate(_ ndjson: String) throws {
        let schema = ExecutableRunner.repositoryRoot + "/docs/library-book.schema.json"
        guard let violations = try JSONSchemaCheck.violations(ndjson: ndjson, schema: schema) else {
            #expect(!JSONSchemaCheck.underCI, "python3 has no jsonschema module: needed under CI")
            return
        }
        #expect(violations.isEmpty, "\(violations.joined(separator: "\n"))")
    }
}
