import ShelflineCore
import Testing

@testable import ShelflineLibrary

/// A book whose row had no title of its own (the key a reading log names it by) takes the title of
/// the edition lookup matched; a title a reader wrote is never replaced.
@Suite struct PlaceholderTitleMergeTests {
    static func readingLogRow(line: Int) -> BookRecord {
        var record = BookRecord(format: .openlibrary, line: line, title: "OL45804W")
        record.titleIsPlaceholder = true
        record.identifiers = ["openlibrary-work": "OL45804W"]
        record.shelf = "to-read"
        return record
    }

    static func matched(_ record: BookRecord, title: String) -> BookRecord {
        var record = record
        var metadata = EditionMetadata(source: "openlibrary")
        metadata.workKey = "/works/OL45804W"
        metadata.title = title
        metadata.authors = ["Roald Dahl"]
        record.match = MatchResult(status: .matchedByIsbn, workKey: "/works/OL45804W", source: "openlibrary")
        record.metadata = metadata
        return record
    }

    static func fold(_ book: LibraryBook?, _ record: BookRecord, importId: String) -> LibraryBook {
        BookMerger.fold(book: book, id: "b0000000000000001", records: [record], grantedKeys: [], importId: importId)
    }

    @Test(.bug(id: 40)) func placeholderTitleIsReplacedByTheMatchedEditionsNowOrInALaterRun() {
        var notFound = Self.readingLogRow(line: 2)
        notFound.match = MatchResult(status: .notEnriched, reason: "offline")
        let first = Self.fold(nil, notFound, importId: "i1")
        #expect(first.title == "OL45804W" && first.shelf == "to-read")
        #expect(first.metadataFields == ["title"], "the key is no reader's title")

        let later = Self.fold(first, Self.matched(Self.readingLogRow(line: 2), title: "Fantastic Mr. Fox"), importId: "i2")
        #expect(later.title == "Fantastic Mr. Fox" && later.author == "Roald Dahl")
        #expect(later.identifiers == ["openlibrary-work": "OL45804W"] && later.shelf == "to-read")
        #expect(later.provenance.last?.fields.contains("title") == true)

        let atOnce = Self.fold(nil, Self.matched(Self.readingLogRow(line: 2), title: "Fantastic Mr. Fox"), importId: "i1")
        #expect(atOnce.title == "Fantastic Mr. Fox")
        #expect(
            Self.fold(atOnce, Self.matched(Self.readingLogRow(line: 2), title: "Fantastic Mr. Fox"), importId: "i1") == atOnce)
    }

    @Test(.bug(id: 40)) func titleTheReaderWroteIsNeverReplaced() {
        var row = BookRecord(format: .goodreads, line: 2, title: "Mr Fox (my copy)")
        row.author = "Roald Dahl"
        row.identifiers = ["openlibrary-work": "OL45804W"]
        let book = Self.fold(nil, Self.matched(row, title: "Fantastic Mr. Fox"), importId: "i1")
        #expect(book.title == "Mr Fox (my copy)")
        #expect(book.metadataFields?.contains("title") != true)
    }
}
