import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLookup

/// Issue 12, lookup against a large catalog: candidates loaded without their work's description
/// (added to the edition a row is given), the two-generation caches, and the byte-level answer JSON.
@Suite struct CandidateLoadingTests {
    /// A catalog whose works have descriptions, one work under a key without a number.
    func describedCatalog(_ directory: TemporaryDirectory) throws -> CatalogIndex {
        let lines = [
            LookupFixtures.dumpLine("author", "/authors/OL1A", #"{"name": "Ann Zedd"}"#),
            LookupFixtures.dumpLine("author", "/authors/OL2A", #"{"name": "Bo Other"}"#),
            LookupFixtures.dumpLine(
                "work", "/works/OL1W",
                #"{"title": "Glass River", "description": "\#(String(repeating: "A long river story. ", count: 10))"}"#),
            LookupFixtures.dumpLine("work", "/works/odd-work", #"{"title": "Glass River", "description": "Short."}"#),
            LookupFixtures.dumpLine(
                "work", "/works/OL3W", #"{"title": "Glass River", "authors": [{"author": {"key": "/authors/OL2A"}}]}"#),
            LookupFixtures.dumpLine(
                "edition", "/books/OL1M",
                #"{"title": "Glass River", "works": [{"key": "/works/OL1W"}], "authors": [{"key": "/authors/OL1A"}], "isbn_13": ["9780000000002"]}"#
            ),
            LookupFixtures.dumpLine(
                "edition", "/books/OL2M",
                #"{"title": "Glass River", "works": [{"key": "/works/odd-work"}], "authors": [{"key": "/authors/OL2A"}], "isbn_13": ["9780000000019"]}"#
            ),
            LookupFixtures.dumpLine(
                "edition", "/books/OL3M",
                #"{"title": "Glass River", "works": [{"key": "/works/OL3W"}], "isbn_13": ["9780000000026"], "publish_date": "May 1999"}"#
            ),
        ]
        try GzipFixture.write(text: lines.joined(), to: directory.file("dump.txt.gz"))
        return try CatalogIndex.open(
            dumps: [directory.file("dump.txt.gz")], cacheDirectory: directory.file("cache"),
            log: Logfmt(quiet: true))
    }

    @Test(.bug(id: 12)) func anAcceptedCandidateIsDescribedLikeAnISBNAnswer() throws {
        let directory = TemporaryDirectory("lookup-described")
        let index = try describedCatalog(directory)
        let isbns = ["9780000000002", "9780000000019", "9780000000026"]
        let byISBN = try index.editions(isbns: isbns)
        #expect(byISBN.count == 3)
        #expect(byISBN["9780000000002"]?.description?.hasPrefix("A long river story.") == true)
        #expect(byISBN["9780000000019"]?.description == "Short.")
        #expect(byISBN["9780000000026"]?.description == nil)
        #expect(byISBN["9780000000026"]?.authors == ["Bo Other"])  // the work's
        // Candidates come without the description, except under a work key without a number;
        // `described` gives each exactly what the ISBN answer has.
        let prepared = try index.preparedCandidates(title: "Glass River", author: "Ann Zedd", limit: 20)
        #expect(prepared.count == 3)
        for candidate in prepared {
            let answer = try #require(byISBN[candidate.edition.isbn13 ?? ""])
            #expect(candidate.edition.description == (candidate.edition.workKey == "/works/odd-work" ? "Short." : nil))
            #expect(try index.described(candidate.edition) == answer)
        }
        #expect(
            Set(try index.candidates(title: "Glass River", author: nil, limit: 20).map(\.description))
                == Set(byISBN.values.map(\.description)))
    }

    @Test(.bug(id: 12)) func theEngineGivesAMatchedRowItsDescription() async throws {
        let directory = TemporaryDirectory("lookup-described-engine")
        let index = try describedCatalog(directory)
        let engine = LookupEngine(
            sources: [CatalogSource(index: index)], cache: nil, matcher: Matcher(), searchLimit: 20,
            now: { Date(timeIntervalSince1970: 0) })
        // Only the first work is by Ann Zedd with its own description; the search accepts its edition.
        let query = RecordQuery(query: LookupQuery(title: "Glass River", authors: ["Ann Zedd"]))
        let outcomes = try await engine.resolve([query])
        let answer = try index.editions(isbns: [outcomes[0].metadata?.isbn13 ?? ""]).values.first
        #expect(outcomes[0].metadata != nil)
        #expect(outcomes[0].metadata == answer)
    }

    @Test(.bug(id: 12)) func recentCacheKeepsWhatWasUsedAndStaysBounded() {
        var cache = RecentCache<Int, String>(generationLimit: 3)
        for key in 0..<3 { cache.insert("v\(key)", for: key) }
        #expect(cache[0] == "v0")
        cache.insert("v3", for: 3)  // a new generation: 0, 1, 2 become the previous one
        #expect(cache[1] == "v1")  // moves back into the current one
        for key in 4..<6 { cache.insert("v\(key)", for: key) }  // fills it: 0 and 2 are dropped
        #expect(cache[0] == nil)
        #expect(cache[2] == nil)
        #expect(cache[1] == "v1")
        #expect(cache[5] == "v5")
        #expect(cache.count <= 6)
        for key in 0..<1_000 { cache.insert("w\(key)", for: key) }
        #expect(cache.count <= 6)
        #expect(cache[999] == "w999")
    }

    @Test(.bug(id: 12)) func theSharedCacheAnswersInOnePassAndAcrossThreads() {
        let cache = SharedRecentCache<Int, String>(generationLimit: 1_000)
        cache.insert([(1, "one"), (3, "three")])
        #expect(cache.values(for: [3, 2, 1, 3]) == ["three", nil, "one", "three"])
        #expect(cache.values(for: []).isEmpty)
        // Several connections' threads read and fill it at once: every value found is the one stored.
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for round in 0..<2_000 {
                let keys = (0..<8).map { 10 + (round * 8 + $0 + thread * 997) % 5_000 }
                for (key, value) in zip(keys, cache.values(for: keys)) {
                    if let value { #expect(value == "v\(key)") }
                }
                cache.insert(keys.map { ($0, "v\($0)") })
            }
        }
        #expect(cache.count <= 2_000)
        #expect(cache.count > 0)
    }

    /// The byte scan of an ASCII date and the Character scan of any other agree.
    @Test(
        .bug(id: 12),
        arguments: [
            ("1965", 1965), ("19651", nil), ("x2100y", 2100), ("1399", nil), ("May 1999", 1999), ("Mai 1999 é", 1999),
            ("é 1965", 1965), ("1965\u{301}", nil), ("", nil),
        ] as [(String, Int?)])
    func publishYearByteScanAgreesWithCharacterScan(_ text: String, _ expected: Int?) {
        #expect(CatalogIndex.year(text) == expected)
    }

    static let editions: [EditionMetadata] = {
        var full = EditionMetadata(source: "catalog")
        full.editionKey = "/books/OL1M"
        full.workKey = "/works/OL1W"
        full.title = "Quote \" back\\slash / tab\t nl\n \u{1} ünïcode 🙂"
        full.subtitle = ""
        full.authors = ["A", "B \"C\""]
        full.publishers = []
        full.isbn13 = "9780000000002"
        full.isbn10 = "0000000000"
        full.pages = 0
        full.publishDate = "May 1999"
        full.year = -1999
        full.coverId = Int.max
        full.description = "line\r\nbreak\u{1F}"
        var sparse = EditionMetadata(source: "openlibrary")
        sparse.title = "Only a title"
        return [full, sparse, EditionMetadata(source: "")]
    }()

    @Test(.bug(id: 12), arguments: editions)
    func metadataJSONIsTheEncodersBytes(_ edition: EditionMetadata) throws {
        #expect(AnswerJSON.metadata(edition) == Array(try JSONEncoder.shelfline.encode(edition)))
    }

    static let matches: [MatchResult] = [
        MatchResult(status: .matchedByIsbn, editionKey: "/books/OL1M", workKey: "/works/OL1W", source: "catalog"),
        MatchResult(status: .notEnriched, reason: "no \"candidate\""),
        MatchResult(
            status: .needsReview,
            candidates: [MatchCandidate(key: "/books/OL2M", title: "T", authors: ["A"], score: 0.875, reason: "r")],
            reason: LookupEngine.isbnTitleConflict, source: "catalog"),
        MatchResult(status: .matchedBySearch),
    ]

    @Test(.bug(id: 12), arguments: matches)
    func matchJSONIsTheEncodersBytes(_ match: MatchResult) throws {
        #expect(try AnswerJSON.match(match) == Array(try JSONEncoder.shelfline.encode(match)))
    }
}
