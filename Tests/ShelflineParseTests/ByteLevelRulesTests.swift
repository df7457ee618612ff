import ShelflineCore
import Testing

@testable import ShelflineParse

/// The rules the stage runs on a row's bytes give what the general rules give, in the cases where
/// a shortcut could go wrong.
@Suite struct ByteLevelRulesTests {
    /// A row's fields as the reader gives them.
    static func row(_ bytes: [UInt8]) throws -> DelimitedRow {
        let reader = DelimitedReader(source: .bytes(bytes))
        var row = DelimitedRow()
        _ = try reader.next(into: &row)
        return row
    }

    @Test(
        .bug(id: 41),
        arguments: [
            ([0x61, 0xC3, 0x2C, 0xA9, 0x62], 2),  // é split by the delimiter: both halves are invalid
            ([0x78, 0x2C, 0xF0, 0x9F, 0x2C, 0x98, 0x80], 2),  // an emoji split likewise
            ([0x63, 0x61, 0x66, 0xC3, 0xA9, 0x2C, 0x78], 0),  // café, x
            ([0xE9, 0x74, 0xE9, 0x2C, 0x6F, 0x6B], 1),  // Latin-1 été, ok
            ([0x61, 0x2C, 0x2C, 0xA9], 1),  // a continuation byte after an empty field
        ] as [([UInt8], Int)])
    func countsInvalidFieldsAsEachFieldAlone(_ bytes: [UInt8], _ invalid: Int) throws {
        let row = try Self.row(bytes)
        let alone = row.storage.withUnsafeBufferPointer { storage in
            (0..<row.count).count { !TextRepair.isValidUTF8(UnsafeBufferPointer(rebasing: storage[row.range($0)])) }
        }
        #expect(alone == invalid)
        #expect(RecordBuilder.countInvalidFields(row) == invalid)
    }

    @Test(
        .bug(id: 41),
        arguments: [
            "2022/08/06", " 2022/08/06 ", "2020/01/01 12:00, 2021/02/02", "2024-03-01T13:01:12.937, 2023/05/23",
            "2023/05/23-2023/06/07", "2021/01/02, 2023/05/23-2023/06/07", "10/25/2020", "2020/02/30", "soon", "",
        ])
    func readsDatesFromBytesAsFromText(_ cell: String) {
        var text = cell
        #expect(text.withUTF8 { ExportDate.reads(bytes: $0) } == ExportDate.reads(cell))
    }

    @Test(.bug(id: 41)) func readsEveryDateOfAListWhoseFirstHasATime() {
        var cell = "2020/01/01 12:00, 2021/02/02"
        #expect(
            cell.withUTF8 { ExportDate.reads(bytes: $0) } == [
                ReadSpan(start: nil, end: "2020-01-01"), ReadSpan(start: nil, end: "2021-02-02"),
            ])
    }

    @Test(.bug(id: 41), arguments: ["Amy \t  Wallace", "\u{0B}A\u{0C} B\r\nC ", "  x  ", "Ann  Leckie", "a\u{85}  b", "  "])
    func collapsesNamesAsCharacterRulesDo(_ name: String) {
        #expect(PersonName.collapse(name) == name.split(whereSeparator: \.isWhitespace).joined(separator: " "))
    }

    @Test(
        .bug(id: 41),
        arguments: [
            ("14200135X", IdentifierCell.isbn10("014200135X")),  // zero restored before an X
            ("42001356X", .invalid("42001356X")),  // padded, the check fails
            ("01420X1356", .invalid("01420X1356")),  // X not last
            ("978059610199X", .invalid("978059610199X")),  // an X never ends an ISBN-13
            ("0-14-200135-x", .isbn10("014200135X")),
            ("979-10-323-0569-0", .isbn13("9791032305690")),
            ("98012345678901", .invalid("98012345678901")),  // 14 digits
        ])
    func classifiesIdentifierDigits(_ cell: String, _ expected: IdentifierCell) {
        #expect(ISBN.classify(cell) == expected)
    }
}
