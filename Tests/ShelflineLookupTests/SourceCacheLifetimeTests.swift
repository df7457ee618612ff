import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLookup

/// Each source's answers stay in the cache as long as its own section says (`cacheDays`,
/// `negativeCacheDays`), else as long as the lookup stage's do; time is the stage's injected `now`.
@Suite struct SourceCacheLifetimeTests {
    static let start = Date(timeIntervalSince1970: 1_790_000_000)
    static let day = 86_400.0

    @Test(.bug(id: 39)) func sourceSectionOverridesTheStageLifetimesAndTheRestKeepThem() throws {
        let json = #"""
            {"cacheDays": 30, "negativeCacheDays": 3, "openLibrary": {"cacheDays": 1, "negativeCacheDays": 0.5},
             "googleBooks": {"negativeCacheDays": 7}}
            """#
        let parameters = try ConfigDecoder().decode(
            LookupParameters.self, from: JSONDecoder().decode(JSONValue.self, from: Data(json.utf8)))
        let lifetimes = parameters.cacheLifetimes
        #expect(lifetimes["openlibrary"] == LookupCache.Lifetime(positive: Self.day, negative: 0.5 * Self.day))
        #expect(lifetimes["googlebooks"] == LookupCache.Lifetime(positive: 30 * Self.day, negative: 7 * Self.day))
        #expect(lifetimes["isbndb"] == LookupCache.Lifetime(positive: 30 * Self.day, negative: 3 * Self.day))

        let directory = TemporaryDirectory("lookup-ttl")
        let cache = try LookupCache(
            path: directory.file("cache.sqlite"), positiveLifetime: 30 * Self.day, negativeLifetime: 3 * Self.day,
            lifetimes: lifetimes)
        for source in ["openlibrary", "googlebooks", "isbndb"] {
            try cache.store(source: source, [("found", Data("{}".utf8)), ("missing", nil)], now: Self.start)
        }
        func kept(_ source: String, after days: Double) throws -> [String] {
            try cache.lookup(source: source, keys: ["found", "missing"], now: Self.start + days * Self.day).keys.sorted()
        }
        #expect(try kept("openlibrary", after: 0.4) == ["found", "missing"])
        #expect(try kept("openlibrary", after: 0.6) == ["found"], "its own negative lifetime: half a day")
        #expect(try kept("openlibrary", after: 1.1) == [], "its own lifetime: one day")
        #expect(try kept("googlebooks", after: 5) == ["found", "missing"], "its own negative lifetime: a week")
        #expect(try kept("googlebooks", after: 8) == ["found"])
        #expect(try kept("isbndb", after: 2) == ["found", "missing"], "the stage's: 30 and 3 days")
        #expect(try kept("isbndb", after: 4) == ["found"])
        #expect(try kept("isbndb", after: 31) == [])
    }

    /// Through the stage: two runs two days apart, with Open Library's answers kept one day, then
    /// with the stage's default (30 days).
    @Test(.bug(id: 39), arguments: [(#", "cacheDays": 1"#, true), ("", false)])
    func stageAsksAgainOnlyOnceTheSourcesOwnLifetimeIsOver(_ section: String, asksAgain: Bool) async throws {
        let books = OpenLibrarySourceTests.books(3)
        let server = try await FakeOpenLibraryServer(books: books)
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-ttl")
        let records = OpenLibrarySourceTests.isbnRecords(books)
        let parameters = OpenLibrarySourceTests.parameters(server.baseURL, section)
        _ = try await OpenLibrarySourceTests.run(records, parameters: parameters, in: directory, now: Self.start)
        let asked = server.requests.count
        let later = try await OpenLibrarySourceTests.run(
            records, parameters: parameters, in: directory, now: Self.start + 2 * Self.day)
        #expect((server.requests.count > asked) == asksAgain, "\(server.requests.count) requests after \(asked)")
        #expect((later.report.cacheHits == 0) == asksAgain)
        #expect(later.records.allSatisfy { $0.match?.status == .matchedByIsbn })
    }
}
