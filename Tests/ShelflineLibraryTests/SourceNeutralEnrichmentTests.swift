import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLibrary

/// "Enriched" is "a source matched": the book holds that source's own id, whatever the source and
/// the id's shape (`LibraryBook.isEnriched`), in merge's review flag and its not-enriched export.
@Suite struct SourceNeutralEnrichmentTests {
    let temp = TemporaryDirectory("enrichment-tests")

    /// A match by a source that names only a work (its own id, not shaped like Open Library's).
    static let workOnly = MatchResult(status: .matchedBySearch, workKey: "TOY-W7", source: "toy")

    @Test(.bug(id: 37)) func aWorkOnlyMatchOfAnySourceKeepsTheBookOutOfNotEnriched() throws {
        let unmatched = MatchResult(status: .notEnriched, reason: "no candidate")
        let rows = [
            row(rec("Il barone rampante", by: "Italo Calvino", match: Self.workOnly), id: 1),
            row(rec("Il barone rampante", by: "Italo Calvino", match: unmatched), id: 2),
            row(rec("Emma", by: "Jane Austen", match: unmatched), id: 3),
        ]
        let fixture = try ImportFixture(directory: temp.file("work-only"), rows: rows)
        let report = try MergeStage.run(fixture.request(), workspace: Workspace(root: temp.file("ws")))
        #expect(report.enrichment.searchBySource == ["toy": 1])
        let notEnriched = try String(contentsOfFile: fixture.directory + "/not-enriched.csv", encoding: .utf8)
        #expect(notEnriched == ImportFixture.header + "\n" + rows[2].raw + "\n")
        let book = try #require(try libraryBooks(Workspace(root: temp.file("ws"))).first { $0.title == "Il barone rampante" })
        #expect(book.isEnriched && book.workKey == "TOY-W7" && book.editionKey == nil && book.enrichmentSource == "toy")
    }

    @Test(.bug(id: 37)) func aLaterAmbiguousMatchDoesNotFlagABookAnySourceMatched() {
        let matched = BookMerger.fold(
            book: nil, id: "b0000000000000001",
            records: [numbered(rec("Il barone rampante", by: "Italo Calvino", match: Self.workOnly))],
            grantedKeys: [], importId: "i1")
        let later = BookMerger.fold(
            book: matched, id: matched.id,
            records: [numbered(rec("Il barone rampante", by: "Italo Calvino", match: MatchResult(status: .needsReview)))],
            grantedKeys: [], importId: "i2")
        #expect(later.needsReview == nil)
    }

    /// A book as the previous release stored it (Open Library's keys and numbered cover, no cover
    /// URL): both readers decode it, it is enriched, and a later ambiguous match leaves it alone.
    @Test(.bug(id: 37)) func aPreviousReleaseBookDecodesAndIsStillEnriched() throws {
        let line = #"""
            {"coverId":8231856,"editionKey":"/books/OL26242482M","enrichment":"matchedByIsbn","enrichmentSource":"openlibrary","id":"b00f1c2a3b4c5d6e7","isbn13":"9780441172719","keys":["isbn:9780441172719","ta:dune|herbert"],"metadataFields":["publisher"],"provenance":[{"fields":["created"],"format":"goodreads","importId":"i1","lines":[2],"rowIds":["234225"]}],"publisher":"Ace","title":"Dune","workKey":"/works/OL893415W"}
            """#
        let decoded = try JSONDecoder().decode(LibraryBook.self, from: Data(line.utf8))
        let scanned = try #require(Array(line.utf8).withUnsafeBytes { LibraryBookScan.scan($0) })
        #expect(scanned == decoded)
        #expect(decoded.isEnriched && decoded.coverId == 8_231_856 && decoded.coverURL == nil)
        #expect(decoded.provenance.map(\.format) == [.goodreads])
        let later = BookMerger.fold(
            book: decoded, id: decoded.id,
            records: [numbered(rec("Dune", by: "Frank Herbert", match: MatchResult(status: .needsReview)))],
            grantedKeys: [], importId: "i2")
        #expect(later.needsReview == nil && later.editionKey == "/books/OL26242482M")
    }

    func numbered(_ record: BookRecord) -> BookRecord {
        var record = record
        record.line = 2
        return record
    }
}
