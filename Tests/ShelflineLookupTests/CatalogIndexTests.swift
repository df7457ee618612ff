import Foundation
import ShelflineCore
import Testing
import TestSupport
@testable import ShelflineLookup

@Suite struct CatalogIndexTests {
    let quiet = Logfmt(quiet: true)

    func writeGzip(_ text: String, to path: String) throws {
        try GzipFixture.write(text: text, to: path)
    }

    @Test func issue4_badDumpLinesAreSkippedAndCounted() throws {
        let directory = TemporaryDirectory("lookup-catalog")
        let isbn = LookupFixtures.isbn13("978000000001")
        let dump = [
            LookupFixtures.dumpLine("edition", "/books/OL1M", #"{"title": "Good Book", "isbn_13": ["\#(isbn)"], "authors": [{"key": "/authors/OL1A"}]}"#),
            "not a dump line at all\n",
            LookupFixtures.dumpLine("edition", "/books/OL2M", #"{"title": "Broken JSON", "isbn_13": ["#),
            LookupFixtures.dumpLine("edition", "/books/OL3M", #"{"subtitle": "no title here"}"#),
            LookupFixtures.dumpLine("author", "/authors/OL2A", #"{"birth_date": "1900"}"#),
            LookupFixtures.dumpLine("edition", "/books/OL4M", #"{"title": "Bad ISBN kept out", "isbn_13": ["9780000000000", "12-34"], "works": [{"key": "/works/OL4W"}]}"#),
            // Issue 14: an edition with neither authors nor a work could never be accepted.
            LookupFixtures.dumpLine("edition", "/books/OL5M", #"{"title": "Nobody's Book"}"#),
            LookupFixtures.dumpLine("author", "/authors/OL1A", #"{"name": "Ann Author"}"#),
            LookupFixtures.dumpLine("delete", "/books/OL9M", #"{}"#),
        ].joined()
        try writeGzip(dump, to: directory.file("editions.txt.gz"))
        let index = try CatalogIndex.open(dumps: [directory.file("editions.txt.gz")], cacheDirectory: directory.file("cache"), log: quiet)
        #expect(index.built)
        #expect(index.stats.editions == 2)
        #expect(index.stats.skippedLines == 5)
        let found = try index.editions(isbns: [isbn, "9780000000000"])
        #expect(found.keys.sorted() == [isbn])
        #expect(found[isbn]?.authors == ["Ann Author"])
        #expect(found[isbn]?.editionKey == "/books/OL1M")
    }

    @Test func issue4_indexIsRebuiltOnlyWhenDumpContentChanges() throws {
        let directory = TemporaryDirectory("lookup-catalog")
        let path = directory.file("dump.txt")
        directory.write("dump.txt", LookupFixtures.dumpLine("edition", "/books/OL1M", #"{"title": "First", "authors": [{"key": "/authors/OL1A"}]}"#))
        let cache = directory.file("cache")
        let first = try CatalogIndex.open(dumps: [path], cacheDirectory: cache, log: quiet)
        #expect(first.built)
        let again = try CatalogIndex.open(dumps: [path], cacheDirectory: cache, log: quiet)
        #expect(!again.built)
        #expect(again.path == first.path)
        // Same size, new content, a later modification time set explicitly (no sleep): the content hash decides.
        let modified = try #require(FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
        directory.write("dump.txt", LookupFixtures.dumpLine("edition", "/books/OL1M", #"{"title": "Other", "authors": [{"key": "/authors/OL1A"}]}"#))
        try FileManager.default.setAttributes([.modificationDate: modified.addingTimeInterval(10)], ofItemAtPath: path)
        let changed = try CatalogIndex.open(dumps: [path], cacheDirectory: cache, log: quiet)
        #expect(changed.built)
        #expect(changed.path != first.path)
        #expect(try changed.candidates(title: "Other", author: nil, limit: 5).map(\.title) == ["Other"])
        let indexes = try FileManager.default.contentsOfDirectory(atPath: cache).filter { $0.hasSuffix(".sqlite") }
        #expect(indexes.count == 1, "the stale index is removed")
    }

    @Test func issue4_stopSignalDuringTheBuildLeavesNoIndex() throws {
        let directory = TemporaryDirectory("lookup-catalog")
        var dump = ""
        for number in 0..<25_000 { dump += LookupFixtures.dumpLine("edition", "/books/OL\(number)M", #"{"title": "T", "works": [{"key": "/works/OL1W"}]}"#) }
        directory.write("dump.txt", dump)
        #expect(throws: TryLaterError.self) {
            try CatalogIndex.open(dumps: [directory.file("dump.txt")], cacheDirectory: directory.file("cache"), log: quiet,
                                  isCancelled: { true })
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.file("cache")).filter { $0.contains(".sqlite") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func sampleCatalogAnswersISBN10OnlyEditionsRedirectsAndWorkAuthors() throws {
        let directory = TemporaryDirectory("lookup-catalog")
        let index = try CatalogIndex.open(dumps: LookupFixtures.sampleCatalog, cacheDirectory: directory.path, log: quiet)
        // Kindred's edition has only `isbn_10: 0807083690` and an author key that redirects.
        let kindred = try index.editions(isbns: ["9780807083697"])["9780807083697"]
        #expect(kindred?.title == "Kindred")
        #expect(kindred?.authors == ["Octavia E. Butler"])
        #expect(kindred?.isbn10 == "0807083690")
        // Project Hail Mary's edition has no authors: the work's are used.
        #expect(try index.editions(isbns: ["9780593135204"])["9780593135204"]?.authors == ["Andy Weir"])
        let dispossessed = try index.editions(isbns: [LookupFixtures.isbn13("978006051275")]).values.first
        #expect(dispossessed?.description?.hasPrefix("An ambiguous utopia") == true)
        #expect(dispossessed?.year == 1994)
    }

    @Test(arguments: [("March 1965", 1965), ("c1965", 1965), ("1965-03-01", 1965), ("n.d.", nil), ("12345", nil), ("Printed 2003", 2003)] as [(String, Int?)])
    func publishYear(_ text: String, _ expected: Int?) {
        #expect(CatalogIndex.year(text) == expected)
    }
}

@Suite struct LookupCacheTests {
    @Test func issue4_negativeAnswersExpireSoonerThanPositiveOnes() throws {
        let directory = TemporaryDirectory("lookup-cache")
        let cache = try LookupCache(path: directory.file("c.sqlite"), positiveLifetime: 100, negativeLifetime: 10)
        let start = Date(timeIntervalSince1970: 1_000_000)
        try cache.store(source: "s", [(key: "isbn:1", payload: Data("{}".utf8)), (key: "isbn:2", payload: nil)], now: start)
        #expect(try cache.lookup(source: "s", key: "isbn:1", now: start + 5)?.payload != nil)
        #expect(try cache.lookup(source: "s", key: "isbn:2", now: start + 5) != nil)
        #expect(try cache.lookup(source: "s", key: "isbn:2", now: start + 5)?.payload == nil)
        #expect(try cache.lookup(source: "s", key: "isbn:2", now: start + 11) == nil)
        #expect(try cache.lookup(source: "s", key: "isbn:1", now: start + 50) != nil)
        #expect(try cache.lookup(source: "s", key: "isbn:1", now: start + 101) == nil)
        #expect(try cache.lookup(source: "other", key: "isbn:1", now: start) == nil)
        // Survives reopening (committed per batch).
        let reopened = try LookupCache(path: directory.file("c.sqlite"), positiveLifetime: 100, negativeLifetime: 10)
        #expect(try reopened.lookup(source: "s", key: "isbn:1", now: start)?.payload == Data("{}".utf8))
    }
}
