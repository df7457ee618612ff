import ShelflineCore
import Testing

@testable import ShelflineParse

@Suite struct TitleTests {
    @Test(
        .bug(id: 2),
        arguments: [
            ("Gideon the Ninth (The Locked Tomb #1)", "Gideon the Ninth", "The Locked Tomb", "1"),
            ("Ninth House (Alex Stern, #1)", "Ninth House", "Alex Stern", "1"),
            ("We Are Legion (We Are Bob) (Bobiverse, #1)", "We Are Legion (We Are Bob)", "Bobiverse", "1"),
            ("1Q84 (1Q84, #1-3)", "1Q84", "1Q84", "1-3"),
            ("Sistah Samurai (The Champloo Mixes, Mix #1)", "Sistah Samurai", "The Champloo Mixes", "1"),
            (
                "Giovanni's Room (James Baldwin - Early Novels & Stories #2)", "Giovanni's Room",
                "James Baldwin - Early Novels & Stories", "2"
            ),
            ("The Way of Kings (The Stormlight Archive, #2.5)", "The Way of Kings", "The Stormlight Archive", "2.5"),
        ])
    func parsesSeries(_ title: String, _ base: String, _ series: String, _ position: String) {
        #expect(Self.parts(title) == [base, series, position])
    }

    /// The base, series and position `SeriesTitle.ranges` cuts from `title`.
    static func parts(_ title: String) -> [String]? {
        let bytes = Array(title.utf8)
        guard let parts = bytes.withUnsafeBufferPointer({ SeriesTitle.ranges(in: $0, title: 0..<$0.count) }) else { return nil }
        return [parts.base, parts.series, parts.position].map { String(decoding: bytes[$0], as: UTF8.self) }
    }

    @Test(
        .bug(id: 2),
        arguments: [
            "Historia mínima de Perú (Spanish Edition)", "Arabella of Mars (Adventures of Arabella Ashby)",
            "Dataclysm: Who We Are (When We Think No One's Looking)", "(#1)", "Plain title", "Title (Series, #one)",
        ])
    func leavesOtherParenthesesAlone(_ title: String) {
        #expect(Self.parts(title) == nil)
    }
}

@Suite struct FieldRuleTests {
    @Test(
        .bug(id: 2),
        arguments: [
            ("read", "read"), ("Read", "read"), ("currently-reading", "currently-reading"), ("to-read", "to-read"),
            ("Want to Read", "to-read"), ("did-not-finish", "did-not-finish"), ("DNF", "did-not-finish"),
            ("currently reading", "currently-reading"), ("literature", "literature"),
            ("not-interested-for-now", "not-interested-for-now"), ("  paused ", "paused"),
        ])
    func normalisesShelves(_ cell: String, _ expected: String) {
        #expect(ShelfName.normalise(cell) == expected)
    }

    @Test(.bug(id: 2)) func emptyShelfIsNil() {
        #expect(ShelfName.normalise("  ") == nil)
        #expect("to-read, ab-meta, ,g-x".splitTrimmed(UInt8(ascii: ",")) == ["to-read", "ab-meta", "g-x"])
    }

    @Test(
        .bug(id: 2),
        arguments: [
            ("2020/10/25", "2020-10-25"), ("2020-10-25", "2020-10-25"), ("2020/1/5", "2020-01-05"),
            ("[2007-04-16]", "2007-04-16"), ("2024-03-01T13:01:12.937", "2024-03-01"), ("10/25/2020", "2020-10-25"),
            ("2024/02/29", "2024-02-29"),
        ])
    func normalisesDates(_ cell: String, _ expected: String) {
        #expect(ExportDate.normalise(cell) == expected)
    }

    @Test(.bug(id: 2), arguments: ["", "2023/02/29", "2020/13/01", "2020", "2020-05", "yesterday", "25/10/2020"])
    func rejectsNonDates(_ cell: String) {
        #expect(ExportDate.normalise(cell) == nil)
    }

    @Test(
        .bug(id: 10),
        arguments: [
            ("2006", 2006), ("c1999", 1999), ("1979-05", 1979), ("ISBN 12345 then 2001", 2001),
            // Runs longer than four digits are not years, however long: 40 digits once overflowed an Int
            // (found by the CI fuzz smoke, csv target).
            (String(repeating: "7", count: 40), nil), ("2020" + String(repeating: "7", count: 30), nil),
            (String(repeating: "9", count: 30) + " 1984", 1984),
        ] as [(String, Int?)])
    func yearIsTheFirstFourDigitRunAndLongRunsNeverOverflow(_ cell: String, _ expected: Int?) {
        #expect(ExportDate.year(bytes: cell.utf8) == expected)
    }

    @Test(.bug(id: 2)) func readsSingleRangesAndLists() {
        #expect(ExportDate.reads("2022/08/06") == [ReadSpan(start: nil, end: "2022-08-06")])
        #expect(ExportDate.reads("2023/05/23-2023/06/07") == [ReadSpan(start: "2023-05-23", end: "2023-06-07")])
        #expect(ExportDate.reads("2023-05-23-2023-06-07") == [ReadSpan(start: "2023-05-23", end: "2023-06-07")])
        #expect(ExportDate.reads("2023/05/23-") == [ReadSpan(start: "2023-05-23", end: nil)])
        #expect(
            ExportDate.reads("2021/01/02, 2023/05/23-2023/06/07") == [
                ReadSpan(start: nil, end: "2021-01-02"), ReadSpan(start: "2023-05-23", end: "2023-06-07"),
            ])
        #expect(ExportDate.reads("").isEmpty)
    }

    @Test(
        .bug(id: 2),
        arguments: [
            ("0", nil), ("", nil), ("5", 5.0), ("4.5", 4.5), ("3.75", 3.75), ("4.25", 4.25), ("5.0", 5.0), ("6", nil),
            ("abc", nil), ("-1", nil),
        ] as [(String, Double?)])
    func readsRatings(_ cell: String, _ expected: Double?) {
        #expect(CellValue.rating(cell) == expected)
    }

    @Test(
        .bug(id: 2),
        arguments: [
            ("Amy    Wallace", "Amy Wallace"), ("  Dennis  Taylor ", "Dennis Taylor"), ("Mélanie\u{A0}Dupuis", "Mélanie Dupuis"),
            ("A\tB\nC", "A B C"),
        ])
    func collapsesAuthorWhitespace(_ raw: String, _ expected: String) {
        #expect(PersonName.collapse(raw) == expected)
    }

    @Test(.bug(id: 2)) func splitsAuthorListsAndUninvertsNames() {
        #expect(PersonName.list("Richard   Wright, Paul  Pearson,") == ["Richard Wright", "Paul Pearson"])
        #expect(PersonName.uninverted("Cortazar, Julio") == "Julio Cortazar")
        #expect(PersonName.uninverted("Dumas, Alexandre, père") == "Dumas, Alexandre, père")
        #expect(PersonName.uninverted("Plato") == "Plato")
    }

    @Test(.bug(id: 2), arguments: [("Yes", true), ("No", false), ("1", true), ("0", false), ("", false), ("2", true)])
    func readsOwnedCells(_ cell: String, _ expected: Bool) {
        #expect(CellValue.owned(cell) == expected)
    }

    @Test(.bug(id: 2)) func takesPublisherFromLibraryThingPublication() {
        #expect(RecordBuilder.publisher(fromPublication: "O'Reilly Media (2006), Edition: Fifth, 1032 pages") == "O'Reilly Media")
        #expect(RecordBuilder.publisher(fromPublication: "Ally Press") == "Ally Press")
        #expect(RecordBuilder.publisher(fromPublication: "Gallimard (1979), Poche") == "Gallimard")
    }
}

/// `Bookshelves with positions` items read from the row's bytes give what the String rules give,
/// for ASCII items (read as bytes) and for the others (handed to the String rules).
@Suite struct ShelfPositionTests {
    @Test(
        arguments: [
            ("to-read (#339)", "to-read", 339), ("read  (#1)", "read", 1), ("fantasy (#007)", "fantasy", 7),
            ("to-read", "to-read", nil), ("to-read (#)", "to-read (#)", nil), ("to-read (#12a)", "to-read (#12a)", nil),
            ("to-read(#12)", "to-read(#12)", nil), ("a # b (#3)", "a # b", 3), ("(#4)", "(#4)", nil), (" (#5)", "(#5)", nil),
            ("x (#1234567890)", "x (#1234567890)", nil), ("x (#123456789)", "x", 123_456_789), ("#)", "#)", nil),
            ("lu (#2) (#3)", "lu (#2)", 3), ("café (#9)", "café", 9), ("🙂 (#١٢)", "🙂 (#١٢)", nil),
            ("e\u{301} (#2)", "e\u{301}", 2),
            ("x (#\u{301}2)", "x (#\u{301}2)", nil), ("x (#2)\u{301}", "x (#2)\u{301}", nil),
        ] as [(String, String, Int?)])
    func itemsReadAsBytesMatchTheStringRules(_ item: String, _ shelf: String, _ position: Int?) {
        let fromString = ShelfPosition.parse(item)
        #expect(fromString == ShelfPosition(shelf: shelf, position: position))
        let bytes = Array(item.utf8)
        bytes.withUnsafeBufferPointer { buffer in
            let range = CellBytes.trimmed(buffer, 0..<buffer.count)
            #expect(ShelfPosition.parse(buffer, range) == fromString)
        }
    }
}
