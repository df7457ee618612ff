import Testing

@testable import ShelflineLibrary

@Suite struct BookKeysTests {
    @Test(
        .bug(id: 3),
        arguments: [
            ("0306406152", "9780306406157"),
            ("080442957X", "9780804429573"),
            ("0-306-40615-2", "9780306406157"),
        ])
    func isbn10MeetsIsbn13(isbn10: String, isbn13: String) {
        #expect(BookKeys.isbnKey(isbn13: nil, isbn10: isbn10) == "isbn:" + isbn13)
        #expect(BookKeys.isbnKey(isbn13: isbn13, isbn10: nil) == "isbn:" + isbn13)
    }

    @Test func invalidIsbnsAreNoKeys() {
        #expect(BookKeys.isbnKey(isbn13: "9780306406158", isbn10: nil) == nil)
        #expect(BookKeys.isbnKey(isbn13: nil, isbn10: "0306406153") == nil)
        #expect(BookKeys.isbnKey(isbn13: "9.78053E+12", isbn10: nil) == nil)
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
    @Test(
        .bug(id: 12),
        arguments: [
            // `b` + the first 16 hex digits of SHA-256 of the key's UTF-8 (Python hashlib).
            ("isbn:9780441172719", "b5c6f031ee7806de3"),
            ("ta:dune|herbert", "b2e4c6948e6131b42"),
            ("ta:cent ans de solitude|garcía márquez", "b824edd6a0bc3bd9b"),
        ])
    func bookIdsAreTheFirstBytesOfSHA256(key: String, id: String) {
        #expect(BookKeys.bookId(for: key) == id)
        #expect(BookKeys.keyHash(key) == BookKeys.idBits(id))
    }
}
