import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLookup

/// Issue 12, lookup against a large catalog: the matcher judges a search's candidates whose
/// authors match the row's first, and loads the others only when those do not give an acceptance.
@Suite struct AuthorsFirstDecisionTests {
    /// Near misses of every kind the matcher tells apart: the same title with a subtitle, a
    /// differing token, a sequel number or a typo; the same person written otherwise, another
    /// person of the same surname, another author; works with several editions.
    static let titles = [
        "Glass River", "The Glass River", "Glass River: A Novel", "Glass River II", "Glass Rivers",
        "Glass Ocean", "Silver River", "River",
    ]
    static let subtitles: [String?] = [nil, nil, nil, "A Novel", "Stories"]
    static let authors = ["Ann Zedd", "A. Zedd", "Zedd, Ann", "Bo Zedd", "Cy Other", "Ann Zed", "Dee Lane"]

    static func edition(_ number: Int, _ generator: inout SeededGenerator) -> EditionMetadata {
        var edition = EditionMetadata(source: CatalogSource.sourceName)
        edition.editionKey = "/books/OL\(number)M"
        // A few works each, so that editions of one work compete for its best edition.
        edition.workKey =
            Int.random(in: 0..<5, using: &generator) == 0 ? nil : "/works/OL\(Int.random(in: 0..<6, using: &generator))W"
        edition.title = titles.randomElement(using: &generator)
        edition.subtitle = subtitles.randomElement(using: &generator)!
        let count = Int.random(in: 0...2, using: &generator)
        edition.authors = count == 0 ? nil : (0..<count).map { _ in authors.randomElement(using: &generator)! }
        edition.year = Bool.random(using: &generator) ? 1990 + Int.random(in: 0..<3, using: &generator) : nil
        edition.pages = Bool.random(using: &generator) ? 300 + Int.random(in: 0..<3, using: &generator) * 10 : nil
        edition.isbn13 = Bool.random(using: &generator) ? "97800000000\(Int.random(in: 10..<13, using: &generator))" : nil
        return edition
    }

    static func query(_ generator: inout SeededGenerator) -> LookupQuery {
        let count = Int.random(in: 0...2, using: &generator)
        var query = LookupQuery(
            title: titles.randomElement(using: &generator)!,
            authors: (0..<count).map { _ in authors.randomElement(using: &generator)! })
        query.year = Bool.random(using: &generator) ? 1990 + Int.random(in: 0..<3, using: &generator) : nil
        query.pages = Bool.random(using: &generator) ? 300 : nil
        query.isbn = Bool.random(using: &generator) ? "9780000000011" : nil
        return query
    }

    @Test(.bug(id: 12)) func judgingMatchingAuthorsFirstGivesTheVerdictOfJudgingAll() {
        var generator = SeededGenerator(seed: 12)
        let matcher = Matcher()
        var accepted = 0, judgedAll = 0, acceptedOnAFew = 0
        for _ in 0..<4_000 {
            // One edition key each, as a catalog gives them (the matcher breaks ties by key).
            let candidates = (0..<Int.random(in: 0...12, using: &generator)).map { number in
                Matcher.PreparedEdition(Self.edition(number, &generator))
            }
            let query = Self.query(&generator)
            var loads: [[Int]] = []
            let verdict = matcher.decide(query, hits: Array(candidates.indices), names: { candidates[$0].names }) { hits in
                loads.append(hits)
                return hits.map { candidates[$0] }
            }
            let expected = matcher.decide(query, prepared: candidates)
            #expect(verdict == expected, "\(query) over \(candidates.map(\.edition))")
            if case .accept = verdict {
                accepted += 1
                // An acceptance is reached on the candidates whose authors match, loaded once.
                #expect(loads.count == 1)
                if loads.first?.count ?? 0 < candidates.count { acceptedOnAFew += 1 }
            } else if loads.last?.count == candidates.count {
                judgedAll += 1
            }
        }
        // Every path was taken, often.
        #expect(accepted > 200)
        #expect(acceptedOnAFew > 200)
        #expect(judgedAll > 200)
    }

    @Test(.bug(id: 12), arguments: [0.85, 0.95, 0.8, 0.5])
    func theQuickAuthorTestAgreesWithTheScore(threshold: Double) {
        var matcher = Matcher()
        matcher.authorThreshold = threshold
        var generator = SeededGenerator(seed: 21)
        let people =
            Self.authors + [
                "Ursula K. Le Guin", "Le Guin", "U. K. LeGuin", "Ann Zedd Jr.", "Zedd", "", "?", "Anne Zedd",
                "Jean-Paul Sartre", "Ann Ze", "Zed Ann",
            ]
        var matches = 0, trials = 0
        for _ in 0..<3_000 {
            func names() -> [Matcher.ComparedName] {
                (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                    Matcher.ComparedName(name: people.randomElement(using: &generator)!)
                }
            }
            let query = names().filter { !$0.tokens.isEmpty }, candidate = names()
            let expected = matcher.authorRelation(query, candidate).relation == .match
            #expect(matcher.authorsMatch(query, candidate) == expected, "\(query.map(\.tokens)) vs \(candidate.map(\.tokens))")
            matches += expected ? 1 : 0
            trials += 1
        }
        #expect(matches > 100)
        #expect(trials - matches > 100)
    }

    @Test(.bug(id: 12)) func aRowWithoutAuthorsIsJudgedOnEveryCandidateAtOnce() {
        let candidates = (1...3).map { number in
            var edition = EditionMetadata(source: CatalogSource.sourceName)
            (edition.editionKey, edition.workKey, edition.title, edition.authors) = (
                "/books/OL\(number)M", "/works/OL\(number)W", "Glass River", ["Ann Zedd"]
            )
            return Matcher.PreparedEdition(edition)
        }
        var loads: [[Int]] = []
        let verdict = Matcher().decide(
            LookupQuery(title: "Glass River", authors: []), hits: [0, 1, 2], names: { candidates[$0].names }
        ) { hits in
            loads.append(hits)
            return hits.map { candidates[$0] }
        }
        #expect(loads == [[0, 1, 2]])
        #expect(verdict == Matcher().decide(LookupQuery(title: "Glass River", authors: []), prepared: candidates))
    }

    @Test(.bug(id: 12)) func aHitCarriesTheAuthorNamesItsEditionIsJudgedBy() throws {
        let directory = TemporaryDirectory("lookup-hit-names")
        let lines = [
            LookupFixtures.dumpLine("author", "/authors/OL1A", #"{"name": "Ursula K. Le Guin"}"#),
            LookupFixtures.dumpLine("author", "/authors/OL2A", #"{"name": "Bo Other Jr."}"#),
            LookupFixtures.dumpLine("redirect", "/authors/OL9A", #"{"location": "/authors/OL1A"}"#),
            LookupFixtures.dumpLine(
                "work", "/works/OL1W", #"{"title": "Glass River", "authors": [{"author": {"key": "/authors/OL2A"}}]}"#),
            // Its own author; its work's (none of its own); two, one through a redirect; one unknown id.
            LookupFixtures.dumpLine(
                "edition", "/books/OL1M", #"{"title": "Glass River", "authors": [{"key": "/authors/OL1A"}]}"#),
            LookupFixtures.dumpLine("edition", "/books/OL2M", #"{"title": "Glass River", "works": [{"key": "/works/OL1W"}]}"#),
            LookupFixtures.dumpLine(
                "edition", "/books/OL3M",
                #"{"title": "Glass River", "authors": [{"key": "/authors/OL9A"}, {"key": "/authors/OL2A"}]}"#),
            LookupFixtures.dumpLine(
                "edition", "/books/OL4M", #"{"title": "Glass River", "authors": [{"key": "/authors/OL77A"}]}"#),
        ]
        try GzipFixture.write(text: lines.joined(), to: directory.file("dump.txt.gz"))
        let index = try CatalogIndex.open(
            dumps: [directory.file("dump.txt.gz")], cacheDirectory: directory.file("cache"),
            log: Logfmt(quiet: true))
        // Twice: from the rows, then from the editions the first round cached.
        for _ in 0..<2 {
            let terms = SearchTerms(title: "Glass River", author: "Le Guin")
            let hits = try index.searchHits(title: "Glass River", terms: terms, limit: 20)
            let prepared = try index.prepared(hits)
            #expect(hits.count == 4)
            #expect(prepared.count == 4)
            for (hit, candidate) in zip(hits, prepared) {
                let fresh = Matcher.Normalisation(candidate.edition)
                #expect(hit.names.map(\.tokens) == fresh.names.map(\.tokens), "\(candidate.edition)")
                #expect(candidate.names.map(\.sorted) == fresh.names.map(\.sorted))
            }
            #expect(
                Set(prepared.map { $0.edition.authors ?? [] }) == [
                    ["Ursula K. Le Guin"], ["Bo Other Jr."], ["Ursula K. Le Guin", "Bo Other Jr."], [],
                ])
        }
    }
}
