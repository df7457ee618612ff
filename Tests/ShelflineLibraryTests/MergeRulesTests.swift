import Foundation
import Testing

@testable import ShelflineCore
@testable import ShelflineLibrary

/// Each merge rule of issue 3, on `BookMerger.fold` directly.
@Suite struct MergeRulesTests {
    func fold(_ existing: LibraryBook?, _ records: [BookRecord], importId: String = "i2") -> LibraryBook {
        var lines = 1
        let numbered = records.map { record -> BookRecord in
            var record = record
            lines += 1
            if record.line == 0 { record.line = lines }
            return record
        }
        return BookMerger.fold(book: existing, id: "b0000000000000001", records: numbered, grantedKeys: [], importId: importId)
    }

    func start(_ record: BookRecord) -> LibraryBook { fold(nil, [record], importId: "i1") }

    @Test(
        .bug(id: 3),
        arguments: [
            ("read", "to-read", "read"),
            ("read", "currently-reading", "read"),
            ("currently-reading", "to-read", "currently-reading"),
            ("to-read", "currently-reading", "currently-reading"),
            ("to-read", "read", "read"),
            ("currently-reading", "did-not-finish", "did-not-finish"),
            ("did-not-finish", "to-read", "did-not-finish"),
            ("read", "did-not-finish", "read"),
            ("to-read", "on-hold", "on-hold"),
        ])
    func shelfIsNeverDowngraded(existing: String, incoming: String, expected: String) {
        let book = start(rec("Dune", by: "Frank Herbert", shelf: existing))
        #expect(fold(book, [rec("Dune", by: "Frank Herbert", shelf: incoming)]).shelf == expected)
    }

    /// Identifiers from every row and import are kept; where two give a scheme, the first writer's stays.
    @Test(.bug(id: 40)) func identifiersUnionFirstWriterWins() {
        var first = BookRecord(format: .calibre, line: 2, title: "T")
        first.identifiers = ["goodreads": "1", "calibre": "u"]
        var second = BookRecord(format: .calibre, line: 3, title: "T")
        second.identifiers = ["goodreads": "2", "amazon": "B0"]
        let book = start(first)
        #expect(book.identifiers == ["goodreads": "1", "calibre": "u"])
        var later = BookRecord(format: .bookwyrm, line: 2, title: "T")
        later.identifiers = ["goodreads": "9", "wikidata": "Q1"]
        let merged = fold(book, [later])
        #expect(merged.identifiers == ["goodreads": "1", "calibre": "u", "wikidata": "Q1"])
        #expect(merged.provenance.last?.fields.contains("identifiers") == true)
        #expect(fold(merged, [later]).identifiers == merged.identifiers)
        #expect(fold(nil, [first, second]).identifiers == ["goodreads": "1", "calibre": "u", "amazon": "B0"])
    }

    @Test(.bug(id: 3)) func didNotFinishIsNeverInferred() {
        let book = start(rec("Dune", by: "Frank Herbert", shelf: "currently-reading"))
        let merged = fold(book, [rec("Dune", by: "Frank Herbert", shelf: nil, shelves: ["abandoned"])])
        #expect(merged.shelf == "currently-reading")
    }

    @Test(.bug(id: 3)) func everyDistinctReadDateIsKept() {
        let existing = start(rec("Dune", by: "Frank Herbert", reads: [ReadSpan(end: "2019-05-01")]))
        let merged = fold(
            existing,
            [
                rec(
                    "Dune", by: "Frank Herbert",
                    reads: [ReadSpan(start: "2019-04-20", end: "2019-05-01"), ReadSpan(end: "2023-01-02")])
            ])
        // The end-only reading is the same reading as the range that ends that day.
        #expect(merged.reads == [ReadSpan(start: "2019-04-20", end: "2019-05-01"), ReadSpan(end: "2023-01-02")])
    }

    @Test(.bug(id: 36)) func shelvesAreTheLatestExportsList() {
        let existing = start(rec("Dune", by: "Frank Herbert", shelf: "to-read", shelves: ["sci-fi", "favorites", "to-read"]))
        let merged = fold(existing, [rec("Dune", by: "Frank Herbert", shelf: "read", shelves: ["book-club", "sci-fi"])])
        #expect(merged.shelf == "read")
        #expect(merged.shelves == ["book-club", "sci-fi"])
        // An empty cell of a format with the column: on no other shelf.
        #expect(fold(merged, [rec("Dune", by: "Frank Herbert", shelf: "read")], importId: "i3").shelves == nil)
        // A mapped CSV without shelves says nothing of them.
        #expect(
            fold(merged, [rec("Dune", by: "Frank Herbert", format: .generic)], importId: "i3").shelves == ["book-club", "sci-fi"])
        // The exclusive shelf is one value: a state the book has left is no shelf it is on.
        let back = fold(merged, [rec("Dune", by: "Frank Herbert", shelf: "to-read", shelves: ["to-read"])], importId: "i3")
        #expect(back.shelf == "read" && back.shelves == nil)
    }

    @Test(.bug(id: 3)) func newerExportWinsRatingAndReview() {
        let existing = start(rec("Dune", by: "Frank Herbert", rating: 3, review: "ok"))
        let merged = fold(existing, [rec("Dune", by: "Frank Herbert", rating: 4.75, review: "better on re-read")])
        #expect(merged.rating == 4.75)
        #expect(merged.review == "better on re-read")
    }

    @Test(.bug(id: 3)) func emptyCellNeverErasesAValue() {
        let existing = start(rec("Dune", by: "Frank Herbert", shelf: "read", rating: 4, shelves: ["x"], review: "great"))
        let merged = fold(existing, [rec("Dune", by: nil, shelf: nil, rating: nil, review: "  ")])
        #expect(merged.rating == 4)
        #expect(merged.review == "great")
        #expect(merged.author == "Frank Herbert")
        // The shelves are the newest row's list (issue 36): an empty cell there is no shelf.
        #expect(merged.shelves == nil)
    }

    @Test(.bug(id: 3)) func metadataFillsGapsNeverOverwritesReaderFields() {
        let existing = start(rec("Dune", by: "Frank Herbert", shelf: "read", rating: 5))
        var metadata = EditionMetadata(source: "openlibrary")
        metadata.authors = ["Someone Else"]
        metadata.pages = 612
        metadata.coverId = 42
        metadata.editionKey = "/books/OL1M"
        let match = MatchResult(status: .matchedByIsbn, editionKey: "/books/OL1M", source: "openlibrary")
        let merged = fold(existing, [rec("Dune", by: nil, match: match, metadata: metadata)])
        #expect(merged.author == "Frank Herbert")
        #expect(merged.rating == 5)
        #expect(merged.pages == 612)
        #expect(merged.coverId == 42)
        #expect(merged.editionKey == "/books/OL1M")
        #expect(merged.metadataFields == ["coverId", "pages"])
        // A later export value replaces what only metadata supplied.
        var withPages = rec("Dune", by: "Frank Herbert")
        withPages.pages = 500
        let again = fold(merged, [withPages], importId: "i3")
        #expect(again.pages == 500)
        #expect(again.metadataFields == ["coverId"])
    }

    @Test(.bug(id: 3)) func sameImportTwiceChangesNothing() {
        let record = rec(
            "Dune", by: "Frank Herbert", shelf: "read", rating: 4, reads: [ReadSpan(end: "2020-01-01")],
            shelves: ["sci-fi"], review: "r", dateAdded: "2019-01-01")
        let first = fold(nil, [record, rec("Dune", by: "Frank Herbert", shelf: "to-read", rating: 5)], importId: "i1")
        let second = fold(first, [record, rec("Dune", by: "Frank Herbert", shelf: "to-read", rating: 5)], importId: "i2")
        #expect(second == first)
        #expect(first.rating == 5)
        #expect(first.shelf == "read")
        #expect(first.provenance.count == 1)
        #expect(first.provenance[0].lines == [2, 3])
    }

    @Test(.bug(id: 3)) func provenanceNamesWhatChanged() {
        let existing = start(rec("Dune", by: "Frank Herbert", rating: 3))
        let merged = fold(existing, [rec("Dune", by: "Frank Herbert", rating: 4)], importId: "i2")
        #expect(merged.provenance.count == 2)
        #expect(merged.provenance[1].importId == "i2")
        #expect(merged.provenance[1].fields == ["rating"])
    }

    /// The exports' own text cells (`BookMerger.ownTexts`) are read from the record and written to
    /// the book by name: each lands in the book's field of its own name, and a later import's
    /// non-empty cell replaces it while an empty one leaves it.
    @Test(.bug(id: 25)) func everyOwnTextCellGoesToTheBookFieldOfItsName() throws {
        func record(_ value: (ChangedFields.Field) -> String) throws -> BookRecord {
            var object: [String: Any] = ["format": "goodreads", "line": 2, "byteOffset": 0, "byteLength": 1, "title": "Dune"]
            for field in BookMerger.ownTexts { object[field.name] = value(field) }
            return try JSONDecoder().decode(BookRecord.self, from: JSONSerialization.data(withJSONObject: object))
        }
        let first = start(try record { "first \($0.name)" })
        let json = try #require(try JSONSerialization.jsonObject(with: Data(first.jsonLine)) as? [String: Any])
        for field in BookMerger.ownTexts {
            #expect(json[field.name] as? String == "first \(field.name)")
        }
        let replaced = Set(BookMerger.ownTexts.enumerated().filter { $0.offset.isMultiple(of: 2) }.map(\.element))
        let second = fold(first, [try record { replaced.contains($0) ? "second \($0.name)" : " " }])
        for field in BookMerger.ownTexts {
            #expect(second.ownText(field) == (replaced.contains(field) ? "second " : "first ") + field.name)
        }
        #expect(second.provenance.last?.fields == replaced.map(\.name).sorted())
    }

    @Test(.bug(id: 3)) func decisionsApplyIdempotently() {
        var existing = start(
            rec(
                "Dune", by: "Frank Herbert",
                match: MatchResult(status: .needsReview, candidates: [])))
        #expect(existing.needsReview == true)
        let candidate = MatchCandidate(
            key: "/books/OL9M", workKey: "/works/OL9W", title: "Dune", authors: ["Frank Herbert"], score: 0.7)
        let decision = ReviewDecision(bookId: existing.id, action: .accept, candidate: candidate, importId: "i1", line: 2)
        BookMerger.apply(decision, to: &existing)
        #expect(existing.editionKey == "/books/OL9M")
        #expect(existing.needsReview == nil)
        var again = existing
        BookMerger.apply(decision, to: &again)
        #expect(again == existing)
        // A later ambiguous match does not flag a decided book again.
        let later = fold(existing, [rec("Dune", by: "Frank Herbert", match: MatchResult(status: .needsReview))])
        #expect(later.needsReview == nil)
    }

    /// A search candidate stored without `workKey` (older runs) names a work where the shape of its
    /// source's ids says so (`SourceShapes`), whatever the source.
    @Test(.bug(id: 37)) func acceptedCandidateWithoutWorkKeyIsReadByItsSourcesShape() {
        func accept(_ key: String, source: String?) -> LibraryBook {
            var book = start(rec("Dune", by: "Frank Herbert", match: MatchResult(status: .needsReview, candidates: [])))
            book.enrichmentSource = source
            let candidate = MatchCandidate(key: key, title: "Dune", authors: ["Frank Herbert"], score: 0.7)
            BookMerger.apply(
                ReviewDecision(bookId: book.id, action: .accept, candidate: candidate, importId: "i", line: 2), to: &book)
            return book
        }
        let work = accept("/works/OL9W", source: "openlibrary")
        #expect(work.workKey == "/works/OL9W" && work.editionKey == nil)
        let older = accept("/works/OL9W", source: nil)
        #expect(older.workKey == "/works/OL9W" && older.editionKey == nil)
        let edition = accept("/books/OL9M", source: "catalog")
        #expect(edition.editionKey == "/books/OL9M" && edition.workKey == nil)
        let toy = SourceShape(source: "toy", workKeyPrefix: "TOY-W")
        #expect(toy.isWorkKey("TOY-W1") && !toy.isWorkKey("/works/OL9W"))
        #expect(!SourceShape(source: "google").isWorkKey("/works/OL9W"))
    }
}

@Suite struct LibraryBookEncodingTests {
    @Test func hand_written_json_round_trips() throws {
        var book = LibraryBook(id: "b0123456789abcdef", title: "Quote \" backslash \\ slash / tab \t newline \n é ✓ \u{1}")
        book.keys = ["isbn:9780441172719", "ta:dune|herbert"]
        book.rating = 4.25
        book.pages = 412
        book.owned = false
        book.needsReview = true
        book.reads = [ReadSpan(start: "2020-01-01", end: "2020-02-01"), ReadSpan(end: "2021-05-05")]
        book.provenance = [Contribution(importId: "i1", format: .storygraph, lines: [2, 7], rowIds: nil, fields: ["created"])]
        book.shelves = []
        book.identifiers = ["openlibrary-edition": "OL1M", "q\"": "é \\ /"]
        let decoded = try JSONDecoder().decode(LibraryBook.self, from: Data(book.jsonLine))
        #expect(decoded == book)
        var whole = book
        whole.rating = 5
        #expect(String(decoding: whole.jsonLine, as: UTF8.self).contains("\"rating\":5,"))
        #expect(try JSONDecoder().decode(LibraryBook.self, from: Data(whole.jsonLine)) == whole)
    }
}

@Suite struct LedgerEncodingTests {
    @Test(arguments: [
        LedgerEntry(line: 2, outcome: .rejected, reason: "unterminated \"quote\"\n"),
        LedgerEntry(line: 5, outcome: .rejected, reason: "control\u{8}chars\u{C}in\u{1}a\tcell\r"),
        LedgerEntry(
            line: 3, outcome: .duplicateInFile, bookId: "b0123456789abcdef", firstLine: 2, key: "ta:é|x", match: .needsReview),
        LedgerEntry(line: 4, outcome: .added, bookId: "b0123456789abcdef", key: "isbn:9780441172719"),
    ])
    func ledgerJSONMatchesTheProjectEncoder(entry: LedgerEntry) throws {
        var bytes: [UInt8] = []
        entry.appendJSON(to: &bytes)
        #expect(bytes == Array(try JSONEncoder.shelfline.encode(entry)))
    }
}

@Suite struct ShelfUnionTests {
    /// `BookMerger.union` of two shelf lists: what a `Set` of both, without "", sorted gives, down to
    /// the bytes of canonically equal names (the first one listed is kept).
    @Test(
        .bug(id: 41),
        arguments: [
            ([String]?.none, [String]?.none, [String]?.none),
            (["b", "a", "b", ""], nil, ["a", "b"]),
            (
                ["to-read", "g-bitter", "g-back"], ["g-back", "currently-reading"],
                ["currently-reading", "g-back", "g-bitter", "to-read"]
            ),
            ([""], [""], nil),
            (["caf\u{E9}", "x"], ["cafe\u{301}"], ["caf\u{E9}", "x"]),
            (["cafe\u{301}", "x"], ["caf\u{E9}"], ["cafe\u{301}", "x"]),
            (nil, ["a", "b"], ["a", "b"]),
        ])
    func unionIsTheSortedSetOfBoth(a: [String]?, b: [String]?, expected: [String]?) {
        let union = BookMerger.union(a, b)
        #expect(union?.map { Array($0.utf8) } == expected?.map { Array($0.utf8) })
    }
}
