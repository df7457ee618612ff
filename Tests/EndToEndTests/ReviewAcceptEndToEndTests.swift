import Foundation
import ShelflineCore
import TestSupport
import TestTraits
import Testing

/// What `shelfline review accept` writes into the library.
@Suite(.offCooperativePool) struct ReviewAcceptEndToEndTests {
    /// An Open Library search answers with works; one without `cover_edition_key` names no edition.
    /// Accepting it records its work key as the work, and claims no edition.
    @Test(.bug(id: 23, "minor")) func acceptingASearchCandidateThatNamesNoEditionKeepsItsKeyOutOfEditionKey() async throws {
        let dir = TemporaryDirectory("review-accept-work")
        let (server, csv, common) = try await ReviewDecisionEndToEndTests.kindred(in: dir)
        defer { Task { try? await server.shutdown() } }
        let first = try ExecutableRunner.run("shelfline", ["run", "--csv", csv] + common, in: dir.path)
        #expect(first.status == 0, "\(first)")
        let list = try ExecutableRunner.run("shelfline", ["review", "list"] + common, in: dir.path)
        #expect(list.stdout.contains("/works/OL11W") && list.stdout.contains("/works/OL22W"), "\(list)")
        let butler = list.stdout.contains("1. /works/OL11W") ? "1" : "2"
        let accept = try ExecutableRunner.run("shelfline", ["review", "accept", "2", butler] + common, in: dir.path)
        #expect(accept.status == 0, "\(accept)")
        let rerun = try ExecutableRunner.run("shelfline", ["run", "--csv", csv] + common, in: dir.path)
        #expect(rerun.status == 0, "\(rerun)")

        struct Book: Decodable { var title: String?; var editionKey: String?; var workKey: String?; var reviewDecision: String? }
        let books = try NDJSONReader<Book>(path: dir.file("ws/library/library.ndjson.gz")).readAll()
        #expect(books.count == 1)
        #expect(books.first?.reviewDecision == "accepted")
        #expect(books.first?.workKey == "/works/OL11W", "\(books)")
        #expect(books.first?.editionKey == nil, "a work key is not an edition key: \(books)")
    }
}
