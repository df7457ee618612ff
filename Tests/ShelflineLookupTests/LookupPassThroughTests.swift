import Clocks
import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLookup

/// Lookup copies what it does not read: a record's bytes reach its output unchanged, `match` and
/// `metadata` spliced in (issue 12; measured for issue 25).
@Suite struct LookupPassThroughTests {
    @Test(.bug(id: 25)) func aLongReviewWithEveryEscapeKindPassesThroughByteForByte() async throws {
        let books = FakeOpenLibraryServer.numberedBooks(1)
        let server = try await FakeOpenLibraryServer(books: books)
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-pass-through")
        let isbn = books.keys.first!
        let found = PassThroughLine.bytes(line: 2, title: books[isbn]!.title, author: "Ann Author", isbn13: isbn)
        let unknown = PassThroughLine.bytes(line: 3, title: "Nowhere", author: "Nobody", isbn13: nil, repeats: 3)
        try GzipFixture.write(bytes: found + [0x0A] + unknown + [0x0A], to: directory.file("in.ndjson.gz"))
        let stage = LookupStage(
            job: StageJob(
                inputs: [.records: directory.file("in.ndjson.gz")], outputs: [.records: directory.file("out.ndjson.gz")],
                arguments: .init(clock: PacingClock(ImmediateClock()))))

        _ = try await stage.run(
            context: LookupFixtures.context(
                OpenLibrarySourceTests.parameters(server.baseURL),
                directory: directory.path))

        let lines = try PassThroughLine.lines(of: directory.file("out.ndjson.gz"))
        try #require(lines.count == 2)
        #expect(PassThroughLine.isSpliced(lines[0], from: found, member: "match"))
        #expect(PassThroughLine.isSpliced(lines[1], from: unknown, member: "match"))
        let records = try LookupFixtures.readRecords(directory.file("out.ndjson.gz"))
        let original = try JSONDecoder().decode(BookRecord.self, from: Data(found))
        #expect(records.first?.review == original.review)
        #expect(records.first?.match?.status == .matchedByIsbn)
        #expect(records.first?.metadata != nil)
    }
}
