import Testing
@testable import ShelflineLibrary

/// The byte-level title and author normalisation for printable ASCII (issue 12) gives what the
/// general, Character-based definition gives.
@Suite struct PrintableASCIIKeysTests {
    /// Titles and names built from the characters the rules look at, so every branch is taken.
    static func samples(count: Int, seed: UInt64) -> [String] {
        let pieces = ["the", "The", "A", "an", "Le", "l'", "don't", "X", "ii", "Jr.", "King", "de", "Guin", "1984",
                      "(", ")", "[", "]", ",", ":", "&", "'", " ", "  ", "-", ".", "#1", "Vol", "eine", "o"]
        var state = seed
        func random(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        return (0..<count).map { _ in (0..<random(9)).map { _ in pieces[random(pieces.count)] }.joined() }
    }

    @Test func titlesMatchTheGeneralRule() {
        for title in Self.samples(count: 20_000, seed: 12) + ["", " ", "()", "(a)", " (a) (b) ", "x, The", "Foo , the ", ":a", "a:b"] {
            for strip in [true, false] {
                #expect(BookKeys.normaliseTitle(title, stripSubtitle: strip) == BookKeys.generalNormaliseTitle(title, stripSubtitle: strip),
                        "title \(title.debugDescription) stripSubtitle \(strip)")
            }
        }
    }

    @Test func authorsMatchTheGeneralRule() {
        for author in Self.samples(count: 20_000, seed: 14) + ["", ",", ", Jr.", "King, Jr., Martin Luther", "Tolkien, J.R.R."] {
            #expect(BookKeys.normaliseAuthor(author) == BookKeys.generalNormaliseAuthor(author), "author \(author.debugDescription)")
        }
    }

    @Test func keysMatchTheGeneralRule() {
        let titles = Self.samples(count: 2_000, seed: 3)
        let authors = Self.samples(count: 2_000, seed: 4)
        for (title, author) in zip(titles, authors) {
            let general = BookKeys.generalNormaliseTitle(title, stripSubtitle: true)
            let expected = general.isEmpty ? nil : "ta:" + general + "|" + BookKeys.generalNormaliseAuthor(author)
            #expect(BookKeys.titleAuthorKey(title: title, author: author) == expected)
        }
        #expect(BookKeys.titleAuthorKey(title: "The Hobbit", author: nil) == "ta:hobbit|")
        // Text outside printable ASCII takes the general rule.
        #expect(BookKeys.titleAuthorKey(title: "CAFÉ\tSociety", author: "García Márquez") == "ta:cafe society|marquez")
    }
}
