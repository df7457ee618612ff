import Testing

@testable import ShelflineCore

struct ISBNCase: CustomTestStringConvertible, Sendable {
    var cell: String
    var expected: IdentifierCell
    var testDescription: String { cell.isEmpty ? "(empty)" : cell }
}

/// Export cells holding an identifier: classified, converted between ISBN-10 and ISBN-13, resolved.
@Suite struct ISBNCellTests {
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

    @Test(.bug(id: 2), arguments: cases)
    func classifiesIdentifierCells(_ example: ISBNCase) {
        #expect(ISBN.classify(example.cell) == example.expected)
    }

    @Test(
        .bug(id: 2),
        arguments: [
            ("0596101996", "9780596101992"), ("014200135X", "9780142001356"), ("0140143505", "9780140143508"),
            ("846666968X", "9788466669689"),
        ])
    func convertsBetweenForms(_ ten: String, _ thirteen: String) {
        #expect(ISBN.thirteen(from: ten) == thirteen)
        #expect(ISBN.ten(from: thirteen) == ten)
        #expect(ISBN.isValid13(thirteen))
        #expect(ISBN.isValid10(ten))
    }

    @Test(.bug(id: 2)) func resolvesCellsInPriorityOrder() {
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
