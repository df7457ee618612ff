import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLookup

/// The search filter never rules out what the index holds (every full-text term and title key
/// tests positive), rules out most of what it lacks, and a damaged one gets its index rebuilt.
@Suite struct CatalogSearchFilterTests {
    func sampleIndex(_ directory: TemporaryDirectory) throws -> CatalogIndex {
        try CatalogIndex.open(
            dumps: LookupFixtures.sampleCatalog, cacheDirectory: directory.file("cache"),
            log: Logfmt(quiet: true))
    }

    @Test(.bug(id: 12)) func everyTermAndTitleKeyOfTheIndexTestsPositive() throws {
        let directory = TemporaryDirectory("lookup-filter")
        let index = try sampleIndex(directory)
        let database = try SQLiteDatabase(path: index.path, readOnly: true)
        try database.execute("CREATE VIRTUAL TABLE temp.terms USING fts5vocab(main, search, col)")
        let terms = try database.prepare("SELECT term, col FROM temp.terms")
        var checked = 0
        while try terms.step() {
            let term = try #require(terms.text(0)), column = try #require(terms.text(1).flatMap(CatalogSearchFilter.Column.init))
            #expect(index.searchFilter.mayContain(term: term, column: column), "\(term) in \(column)")
            checked += 1
        }
        let hashes = try database.prepare("SELECT hash FROM title_keys")
        while try hashes.step() {
            #expect(index.searchFilter.mayContain(titleHash: try #require(hashes.int(0))))
            checked += 1
        }
        #expect(checked > 50)
        // What the index lacks is mostly ruled out (false positives ~1 %; deterministic hashes).
        let absent = (0..<1000).filter { index.searchFilter.mayContain(term: "absentword\($0)", column: .title) }
        #expect(absent.count < 50)
        #expect(!index.searchFilter.mayContain(titleHash: CatalogIndex.titleHash("no such book at all")))
    }

    @Test(.bug(id: 12)) func searchesTheFilterRulesOutFindNothingAndOthersStillFind() throws {
        let directory = TemporaryDirectory("lookup-filter")
        let index = try sampleIndex(directory)
        #expect(try index.candidates(title: "Zzyzx Quuxly", author: "Nobody Atall", limit: 5).isEmpty)
        // Found by each query alone: the exact title key, the author's walk, the title words.
        #expect(try index.candidates(title: "Kindred", author: nil, limit: 5).map(\.title).contains("Kindred"))
        let byAuthor = try index.candidates(title: "Zzyzx Kindred Quuxly", author: "Octavia Butler", limit: 5)
        #expect(byAuthor.map(\.title).contains("Kindred"))
        #expect(try !index.candidates(title: "The Dispossessed: an ambiguous utopia", author: nil, limit: 5).isEmpty)
        #expect(try index.candidates(title: "Der Wüstenplanet", author: nil, limit: 5).map(\.title) == ["Der Wüstenplanet"])
    }

    @Test(.bug(id: 12)) func storedBytesRoundTripAndBadLengthsAreRejected() {
        var filter = CatalogSearchFilter(capacity: 100)
        filter.insert(term: "glass".utf8, column: .title)
        filter.insert(titleHash: 42)
        let copy = CatalogSearchFilter(bytes: filter.bytes)
        #expect(copy?.mayContain(term: "glass", column: .title) == true)
        #expect(copy?.mayContain(titleHash: 42) == true)
        #expect(copy?.bytes == filter.bytes)
        for length in [0, 7, 25] { #expect(CatalogSearchFilter(bytes: [UInt8](repeating: 0, count: length)) == nil, "\(length)") }
    }

    /// A damaged filter makes the index unusable; the index is rebuildable, so it is set aside
    /// (`.corrupt-<time>`) and rebuilt, not a stop (issue 23 §4; before, a clear error).
    @Test(.bug(id: 12)) func aDamagedFilterSetsTheIndexAsideAndRebuildsIt() throws {
        let directory = TemporaryDirectory("lookup-filter")
        let path = try sampleIndex(directory).path
        let database = try SQLiteDatabase(path: path)
        try database.execute("UPDATE search_filter SET bits = x'0102'")
        database.close()
        let rebuilt = try sampleIndex(directory)
        #expect(rebuilt.built && rebuilt.path == path)
        #expect(try rebuilt.editions(isbns: ["9780441478125"])["9780441478125"]?.title == "The Left Hand of Darkness")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.file("cache"))
        #expect(names.filter { $0.contains(".corrupt-") }.count == 1, "\(names)")
    }
}
