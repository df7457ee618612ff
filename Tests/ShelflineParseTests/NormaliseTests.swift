import ShelflineCore
import Testing

@testable import ShelflineParse

struct ISBNCase: CustomTestStringConvertible, Sendable {
    var cell: String
    var expected: IdentifierCell
    var testDescription: String { cell.isEmpty ? "(empty)" : cell }
}

@Suite struct ISBNTests {
    static let cases: [ISBNCase] = [
        .init(cell: "=\"9781250313195\"", expected: .isbn13("9781250313195")),
        .init(cell: "=\"1250313198\"", expected: .isbn10("1250313198")),
        .init(cell: "=\"\"", expected: .empty),
        .init(cell: "", expected: .empty),
        .init(cell: "  ", expected: .empty),
        .init(cell: "[0596101996]", expected: .isbn10("0596101996")),
        .init(cell: "[]", expected: .empty),
        .init(cell: "978-0-596-10199-2", expected: .isbn13("9780596101992")),
        .init(cell: "014200135X", expected: .isbn10("014200135X")),
        .init(cell: "014200135x", expected: .isbn10("014200135X")),
        .init(cell: "9780596101993", expected: .invalid("9780596101993")),  // bad check digit
        .init(cell: "0596101997", expected: .invalid("0596101997")),
        .init(cell: "140143505", expected: .isbn10("0140143505")),  // one leading zero restored
        .init(cell: "38549081", expected: .invalid("38549081")),  // padding does not validate: kept raw
        .init(cell: "9.78053E+12", expected: .invalid("9.78053E+12")),
        .init(cell: "B07MNWKF2M", expected: .asin("B07MNWKF2M")),
        .init(cell: "X123456789", expected: .invalid("X123456789")),
        .init(cell: "1234567890123", expected: .invalid("1234567890123")),  // not 978/979
        .init(cell: "12345", expected: .invalid("12345")),
    ]

    @Test(arguments: cases)
    func issue2_classifiesIdentifierCells(_ example: ISBNCase) {
        #expect(ISBN.classify(example.cell) == example.expected)
    }

    @Test(arguments: [
        ("0596101996", "9780596101992"), ("014200135X", "9780142001356"), ("0140143505", "9780140143508"),
        ("846666968X", "9788466669689"),
    ])
    func issue2_convertsBetweenForms(_ ten: String, _ thirteen: String) {
        #expect(ISBN.thirteen(from: ten) == thirteen)
        #expect(ISBN.ten(from: thirteen) == ten)
        #expect(ISBN.isValid13(thirteen))
        #expect(ISBN.isValid10(ten))
    }

    @Test func issue2_resolvesCellsInPriorityOrder() {
        // LibraryThing `ISBNs` in either order give the same identifiers.
        let forward = ISBN.resolve(["0596101996", "9780596101992"].map(ISBN.classify))
        let backward = ISBN.resolve(["9780596101992", "0596101996"].map(ISBN.classify))
        #expect(forward == backward)
        #expect(forward.isbn13 == "9780596101992" && forward.isbn10 == "0596101996" && forward.raw == nil)
        // ISBN-10 only → converted; 979 has no ISBN-10.
        #expect(ISBN.resolve([.empty, .isbn10("0596101996")]).isbn13 == "9780596101992")
        #expect(ISBN.resolve([.isbn13("9791032305690")]).isbn10 == nil)
        // Invalid kept raw only when nothing valid was found.
        #expect(ISBN.resolve([.invalid("123"), .empty]).raw == "123")
        #expect(ISBN.resolve([.invalid("123"), .isbn10("0596101996")]).raw == nil)
        #expect(ISBN.resolve([.asin("B07MNWKF2M")]) == ISBN.Resolution(asin: "B07MNWKF2M"))
    }
}

@Suite struct TitleTests {
    @Test(arguments: [
        ("Gideon the Ninth (The Locked Tomb #1)", "Gideon the Ninth", "The Locked Tomb", "1"),
        ("Ninth House (Alex Stern, #1)", "Ninth House", "Alex Stern", "1"),
        ("We Are Legion (We Are Bob) (Bobiverse, #1)", "We Are Legion (We Are Bob)", "Bobiverse", "1"),
        ("1Q84 (1Q84, #1-3)", "1Q84", "1Q84", "1-3"),
        ("Sistah Samurai (The Champloo Mixes, Mix #1)", "Sistah Samurai", "The Champloo Mixes", "1"),
        ("Giovanni's Room (James Baldwin - Early Novels & Stories #2)", "Giovanni's Room",
         "James Baldwin - Early Novels & Stories", "2"),
        ("The Way of Kings (The Stormlight Archive, #2.5)", "The Way of Kings", "The Stormlight Archive", "2.5"),
    ])
    func issue2_parsesSeries(_ title: String, _ base: String, _ series: String, _ position: String) {
        let parsed = SeriesTitle(parsing: title)
        #expect(parsed == SeriesTitle(base: base, series: series, position: position))
    }

    @Test(arguments: [
        "Historia mínima de Perú (Spanish Edition)", "Arabella of Mars (Adventures of Arabella Ashby)",
        "Dataclysm: Who We Are (When We Think No One's Looking)", "(#1)", "Plain title", "Title (Series, #one)",
    ])
    func issue2_leavesOtherParenthesesAlone(_ title: String) {
        #expect(SeriesTitle(parsing: title) == nil)
    }
}

@Suite struct FieldRuleTests {
    @Test(arguments: [
        ("read", "read"), ("Read", "read"), ("currently-reading", "currently-reading"), ("to-read", "to-read"),
        ("Want to Read", "to-read"), ("did-not-finish", "did-not-finish"), ("DNF", "did-not-finish"),
        ("currently reading", "currently-reading"), ("literature", "literature"),
        ("not-interested-for-now", "not-interested-for-now"), ("  paused ", "paused"),
    ])
    func issue2_normalisesShelves(_ cell: String, _ expected: String) {
        #expect(ShelfName.normalise(cell) == expected)
    }

    @Test func issue2_emptyShelfIsNil() {
        #expect(ShelfName.normalise("  ") == nil)
        #expect(ShelfName.list("to-read, ab-meta, ,g-x") == ["to-read", "ab-meta", "g-x"])
    }

    @Test(arguments: [
        ("2020/10/25", "2020-10-25"), ("2020-10-25", "2020-10-25"), ("2020/1/5", "2020-01-05"),
        ("[2007-04-16]", "2007-04-16"), ("2024-03-01T13:01:12.937", "2024-03-01"), ("10/25/2020", "2020-10-25"),
        ("2024/02/29", "2024-02-29"),
    ])
    func issue2_normalisesDates(_ cell: String, _ expected: String) {
        #expect(ExportDate.normalise(cell) == expected)
    }

    @Test(arguments: ["", "2023/02/29", "2020/13/01", "2020", "2020-05", "yesterday", "25/10/2020"])
    func issue2_rejectsNonDates(_ cell: String) {
        #expect(ExportDate.normalise(cell) == nil)
    }

    @Test(arguments: [
        ("2006", 2006), ("c1999", 1999), ("1979-05", 1979), ("ISBN 12345 then 2001", 2001),
        // Runs longer than four digits are not years, however long: 40 digits once overflowed an Int
        // (found by the CI fuzz smoke, csv target).
        (String(repeating: "7", count: 40), nil), ("2020" + String(repeating: "7", count: 30), nil),
        (String(repeating: "9", count: 30) + " 1984", 1984),
    ] as [(String, Int?)])
    func issue10_yearIsTheFirstFourDigitRunAndLongRunsNeverOverflow(_ cell: String, _ expected: Int?) {
        #expect(ExportDate.year(cell) == expected)
    }

    @Test func issue2_readsSingleRangesAndLists() {
        #expect(ExportDate.reads("2022/08/06") == [ReadSpan(start: nil, end: "2022-08-06")])
        #expect(ExportDate.reads("2023/05/23-2023/06/07") == [ReadSpan(start: "2023-05-23", end: "2023-06-07")])
        #expect(ExportDate.reads("2023-05-23-2023-06-07") == [ReadSpan(start: "2023-05-23", end: "2023-06-07")])
        #expect(ExportDate.reads("2023/05/23-") == [ReadSpan(start: "2023-05-23", end: nil)])
        #expect(ExportDate.reads("2021/01/02, 2023/05/23-2023/06/07") == [
            ReadSpan(start: nil, end: "2021-01-02"), ReadSpan(start: "2023-05-23", end: "2023-06-07"),
        ])
        #expect(ExportDate.reads("").isEmpty)
    }

    @Test(arguments: [
        ("0", nil), ("", nil), ("5", 5.0), ("4.5", 4.5), ("3.75", 3.75), ("4.25", 4.25), ("5.0", 5.0), ("6", nil),
        ("abc", nil), ("-1", nil),
    ] as [(String, Double?)])
    func issue2_readsRatings(_ cell: String, _ expected: Double?) {
        #expect(CellValue.rating(cell) == expected)
    }

    @Test(arguments: [
        ("Amy    Wallace", "Amy Wallace"), ("  Dennis  Taylor ", "Dennis Taylor"), ("Mélanie\u{A0}Dupuis", "Mélanie Dupuis"),
        ("A\tB\nC", "A B C"),
    ])
    func issue2_collapsesAuthorWhitespace(_ raw: String, _ expected: String) {
        #expect(PersonName.collapse(raw) == expected)
    }

    @Test func issue2_authorsLists() {
        #expect(PersonName.list("Richard   Wright, Paul  Pearson,") == ["Richard Wright", "Paul Pearson"])
        #expect(PersonName.uninverted("Cortazar, Julio") == "Julio Cortazar")
        #expect(PersonName.uninverted("Dumas, Alexandre, père") == "Dumas, Alexandre, père")
        #expect(PersonName.uninverted("Plato") == "Plato")
    }

    @Test(arguments: [("Yes", true), ("No", false), ("1", true), ("0", false), ("", false), ("2", true)])
    func issue2_owned(_ cell: String, _ expected: Bool) {
        #expect(CellValue.owned(cell) == expected)
    }

    @Test func issue2_publisherFromLibraryThingPublication() {
        #expect(RecordBuilder.publisher(fromPublication: "O'Reilly Media (2006), Edition: Fifth, 1032 pages") == "O'Reilly Media")
        #expect(RecordBuilder.publisher(fromPublication: "Ally Press") == "Ally Press")
        #expect(RecordBuilder.publisher(fromPublication: "Gallimard (1979), Poche") == "Gallimard")
    }
}
