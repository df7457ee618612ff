import ShelflineCore
import Testing

/// Issue 14 §2: one ISBN rule for parse, the dedupe keys and lookup.
@Suite struct ISBNTests {
    @Test(
        .bug(id: 14),
        arguments: [
            ("9780441172719", "9780441172719"),
            ("978-0-441-17271-9", "9780441172719"),
            ("979 10 323 0569 0", "9791032305690"),
            ("0441172717", "9780441172719"),
            ("0-441-17271-7", "9780441172719"),
            ("163557563X", "9781635575637"),
            ("163557563x", "9781635575637"),
            // A valid EAN-13 check digit without the 978/979 Bookland prefix is not an ISBN.
            ("9771234567898", nil),
            ("9780441172718", nil),
            ("0441172718", nil),
            ("16355756X3", nil),
            ("B00ABCDEFG", nil),
            ("9.78044E+12", nil),
            ("", nil),
        ] as [(String, String?)])
    func oneRuleCanonicalisesEveryISBNForm(_ raw: String, _ expected: String?) {
        #expect(ISBN.canonical13(raw) == expected, "\(raw)")
        // Export cells follow the same rule (plus their wrappers and zero padding).
        switch ISBN.classify(raw) {
        case .isbn13(let value): #expect(value == expected, "\(raw)")
        case .isbn10(let value): #expect(ISBN.thirteen(from: value) == expected, "\(raw)")
        case .empty, .asin, .invalid: #expect(expected == nil, "\(raw)")
        }
    }
}
