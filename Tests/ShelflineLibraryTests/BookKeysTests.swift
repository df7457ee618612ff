import Testing
@testable import ShelflineLibrary

@Suite struct BookKeysTests {
    @Test(arguments: [
        ("The Hobbit", "hobbit"),
        ("The Name of the Wind (The Kingkiller Chronicle, #1)", "name of the wind"),
        ("  Dune:   Deluxe Edition ", "dune"),
        ("CAFÉ Society", "cafe society"),
        ("L'Étranger", "etranger"),
        ("Le Petit Prince", "petit prince"),
        ("A Game of Thrones (A Song of Ice and Fire, #1)", "game of thrones"),
        ("An Absolutely Remarkable Thing", "absolutely remarkable thing"),
        ("Pride & Prejudice", "pride and prejudice"),
        ("Don't Look Back", "dont look back"),
        ("Harry Potter and the Sorcerer's Stone", "harry potter and the sorcerers stone"),
        ("1984", "1984"),
        ("The", "the"),
        ("Die Verwandlung", "verwandlung"),
    ])
    func issue3_titleNormalisation(title: String, expected: String) {
        #expect(BookKeys.normaliseTitle(title) == expected)
    }

    @Test(arguments: [
        ("Ursula K. Le Guin", "guin"),
        ("Le Guin, Ursula K.", "guin"),
        ("J.R.R. Tolkien", "tolkien"),
        ("Tolkien, J. R. R.", "tolkien"),
        ("Gabriel García  Márquez", "marquez"),
        ("García Márquez, Gabriel", "marquez"),
        ("Martin Luther King Jr.", "king"),
        ("  Brandon    Sanderson ", "sanderson"),
        ("", ""),
    ])
    func issue3_authorNormalisation(author: String, expected: String) {
        #expect(BookKeys.normaliseAuthor(author) == expected)
    }

    @Test(arguments: [
        ("0306406152", "9780306406157"),
        ("080442957X", "9780804429573"),
        ("0-306-40615-2", "9780306406157"),
    ])
    func issue3_isbn10MeetsIsbn13(isbn10: String, isbn13: String) {
        #expect(BookKeys.isbnKey(isbn13: nil, isbn10: isbn10) == "isbn:" + isbn13)
        #expect(BookKeys.isbnKey(isbn13: isbn13, isbn10: nil) == "isbn:" + isbn13)
    }

    @Test func invalidIsbnsAreNoKeys() {
        #expect(BookKeys.isbnKey(isbn13: "9780306406158", isbn10: nil) == nil)
        #expect(BookKeys.isbnKey(isbn13: nil, isbn10: "0306406153") == nil)
        #expect(BookKeys.isbnKey(isbn13: "9.78053E+12", isbn10: nil) == nil)
    }

    /// Pairs of (title, author) that exports spell differently but are the same book.
    @Test(arguments: [
        (("The Left Hand of Darkness", "Ursula K. Le Guin"), ("Left Hand of Darkness, The", "Le Guin, Ursula K.")),
        (("Cien años de soledad", "Gabriel García Márquez"), ("CIEN AÑOS DE SOLEDAD", "Garcia Marquez, Gabriel")),
        (("Mistborn: The Final Empire (Mistborn, #1)", "Brandon Sanderson"), ("Mistborn", "Brandon  Sanderson")),
    ])
    func issue3_titleAuthorKeysMeet(a: (String, String), b: (String, String)) {
        let keyA = BookKeys.titleAuthorKey(title: a.0, author: a.1)
        #expect(keyA != nil)
        #expect(keyA == BookKeys.titleAuthorKey(title: b.0, author: b.1))
    }

    @Test func differentBooksDoNotMeet() {
        #expect(BookKeys.titleAuthorKey(title: "Dune", author: "Frank Herbert")
            != BookKeys.titleAuthorKey(title: "Dune Messiah", author: "Frank Herbert"))
        #expect(BookKeys.titleAuthorKey(title: "Dune", author: "Frank Herbert")
            != BookKeys.titleAuthorKey(title: "Dune", author: "Brian Herbert Jones"))
    }

    @Test func bookIdsAreStableHashes() {
        let id = BookKeys.bookId(for: "isbn:9780306406157")
        #expect(id.count == 17 && id.hasPrefix("b"))
        #expect(id == BookKeys.bookId(for: "isbn:9780306406157"))
        #expect(BookKeys.idString(BookKeys.idBits(id)!) == id)
        #expect(id != BookKeys.bookId(for: "isbn:9780804429573"))
    }
}

/// Issue 12: hashing keys in place (no `Data` copy) and once per resolve keeps every id.
@Suite struct BookIdHashTests {
    @Test(arguments: [
        // `b` + the first 16 hex digits of SHA-256 of the key's UTF-8 (Python hashlib).
        ("isbn:9780441172719", "b5c6f031ee7806de3"),
        ("ta:dune|herbert", "b2e4c6948e6131b42"),
        ("ta:cent ans de solitude|garcía márquez", "b824edd6a0bc3bd9b"),
    ])
    func issue12_bookIdsAreTheFirstBytesOfSHA256(key: String, id: String) {
        #expect(BookKeys.bookId(for: key) == id)
        #expect(BookKeys.keyHash(key) == BookKeys.idBits(id))
    }
}

/// Issue 12: ASCII text is split into words byte by byte, by the same rule as the Unicode path.
@Suite struct AsciiWordsTests {
    @Test(arguments: [
        "", "dune", "the left hand of darkness", "don't stop", "l'etranger", "rock 'n' roll", "o'brien", "a'b'c",
        "  two  spaces ", "x-men: days of future past", "catch-22", "it's 'quoted'", "''", "a'", "ab'", "tom's''",
        "MiXeD CaSe 123abc", "tab\tand\nnewline", "!@#$%^&*()_+=[]{};:\",.<>/?\\|`~",
    ])
    func issue12_asciiWordsFollowTheUnicodeRule(_ text: String) {
        // A trailing no-break space sends the same text through the Unicode path; it only separates.
        #expect(BookKeys.asciiWords(of: text) == BookKeys.words(of: text + "\u{A0}"))
        #expect(BookKeys.words(of: text) == BookKeys.asciiWords(of: text))
    }
}
