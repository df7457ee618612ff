import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLookup

@Suite struct CatalogIndexTests {
    let quiet = Logfmt(quiet: true)

    func writeGzip(_ text: String, to path: String) throws {
        try GzipFixture.write(text: text, to: path)
    }

    @Test(.bug(id: 4)) func badDumpLinesAreSkippedAndCounted() throws {
        let directory = TemporaryDirectory("lookup-catalog")
        let isbn = LookupFixtures.isbn13("978000000001")
        let dump = [
            LookupFixtures.dumpLine(
                "edition", "/books/OL1M",
                #"{"title": "Good Book", "isbn_13": ["\#(isbn)"], "authors": [{"key": "/authors/OL1A"}]}"#),
            "not a dump line at all\n",
            LookupFixtures.dumpLine("edition", "/books/OL2M", #"{"title": "Broken JSON", "isbn_13": ["#),
            LookupFixtures.dumpLine("edition", "/books/OL3M", #"{"subtitle": "no title here"}"#),
            LookupFixtures.dumpLine("author", "/authors/OL2A", #"{"birth_date": "1900"}"#),
            LookupFixtures.dumpLine(
                "edition", "/books/OL4M",
                #"{"title": "Bad ISBN kept out", "isbn_13": ["9780000000000", "12-34"], "works": [{"key": "/works/OL4W"}]}"#),
            // Issue 14: an edition with neither authors nor a work could never be accepted.
            LookupFixtures.dumpLine("edition", "/books/OL5M", #"{"title": "Nobody's Book"}"#),
            LookupFixtures.dumpLine("author", "/authors/OL1A", #"{"name": "Ann Author"}"#),
            LookupFixtures.dumpLine("delete", "/books/OL9M", #"{}"#),
        ].joined()
        try writeGzip(dump, to: directory.file("editions.txt.gz"))
        let index = try CatalogIndex.open(
            dumps: [directory.file("editions.txt.gz")], cacheDirectory: directory.file("cache"), log: quiet)
        #expect(index.built)
        #expect(index.stats.editions == 2)
        #expect(index.stats.skippedLines == 5)
        #expect(
            index.stats.skippedReasons == [
                "expected 5 tab-separated columns": 1, "invalid JSON": 1, "edition without title": 1,
                "author without name": 1, "edition without authors or work": 1,
            ])
        #expect(index.stats.duplicateKeys == 0)
        let found = try index.editions(isbns: [isbn, "9780000000000"])
        #expect(found.keys.sorted() == [isbn])
        #expect(found[isbn]?.authors == ["Ann Author"])
        #expect(found[isbn]?.editionKey == "/books/OL1M")
    }

    @Test(.bug(id: 4)) func indexIsRebuiltOnlyWhenDumpContentChanges() throws {
        let directory = TemporaryDirectory("lookup-catalog")
        let path = directory.file("dump.txt")
        directory.write(
            "dump.txt",
            LookupFixtures.dumpLine("edition", "/books/OL1M", #"{"title": "First", "authors": [{"key": "/authors/OL1A"}]}"#))
        let cache = directory.file("cache")
        let first = try CatalogIndex.open(dumps: [path], cacheDirectory: cache, log: quiet)
        #expect(first.built)
        let again = try CatalogIndex.open(dumps: [path], cacheDirectory: cache, log: quiet)
        #expect(!again.built)
        #expect(again.path == first.path)
        // Same size, new content, a later modification time set explicitly (no sleep): the content hash decides.
        let modified = try #require(FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
        directory.write(
            "dump.txt",
            LookupFixtures.dumpLine("edition", "/books/OL1M", #"{"title": "Other", "authors": [{"key": "/authors/OL1A"}]}"#))
        try FileManager.default.setAttributes([.modificationDate: modified.addingTimeInterval(10)], ofItemAtPath: path)
        let changed = try CatalogIndex.open(dumps: [path], cacheDirectory: cache, log: quiet)
        #expect(changed.built)
        #expect(changed.path != first.path)
        #expect(try changed.candidates(title: "Other", author: nil, limit: 5).map(\.title) == ["Other"])
        let indexes = try FileManager.default.contentsOfDirectory(atPath: cache).filter { $0.hasSuffix(".sqlite") }
        #expect(indexes.count == 1, "the stale index is removed")
    }

    @Test(.bug(id: 4)) func stopSignalDuringTheBuildLeavesNoIndex() throws {
        let directory = TemporaryDirectory("lookup-catalog")
        var dump = ""
        for number in 0..<25_000 {
            dump += LookupFixtures.dumpLine(
                "edition", "/books/OL\(number)M", #"{"title": "T", "works": [{"key": "/works/OL1W"}]}"#)
        }
        directory.write("dump.txt", dump)
        #expect(throws: TryLaterError.self) {
            try CatalogIndex.open(
                dumps: [directory.file("dump.txt")], cacheDirectory: directory.file("cache"), log: quiet,
                isCancelled: { true })
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.file("cache")).filter { $0.contains(".sqlite") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test(.bug(id: 14)) func duplicateKeysAreSkippedAndCountedTheFirstLineWins() throws {
        let directory = TemporaryDirectory("lookup-catalog")
        let first = LookupFixtures.isbn13("978000000011"), second = LookupFixtures.isbn13("978000000012")
        let dump = [
            LookupFixtures.dumpLine(
                "edition", "/books/OL1M",
                #"{"title": "First Line", "isbn_13": ["\#(first)"], "authors": [{"key": "/authors/OL1A"}]}"#),
            LookupFixtures.dumpLine("author", "/authors/OL1A", #"{"name": "Ann Author"}"#),
            LookupFixtures.dumpLine(
                "edition", "/books/OL1M",
                #"{"title": "Second Line", "isbn_13": ["\#(second)"], "authors": [{"key": "/authors/OL1A"}]}"#),
            LookupFixtures.dumpLine("author", "/authors/OL1A", #"{"name": "Other Name"}"#),
            LookupFixtures.dumpLine("work", "/works/OL1W", #"{"title": "W"}"#),
            LookupFixtures.dumpLine("work", "/works/OL1W", #"{"title": "W again"}"#),
        ].joined()
        try writeGzip(dump, to: directory.file("editions.txt.gz"))
        let index = try CatalogIndex.open(
            dumps: [directory.file("editions.txt.gz")], cacheDirectory: directory.file("cache"), log: quiet)
        #expect(index.stats.editions == 1)
        #expect(index.stats.duplicateKeys == 3)
        #expect(index.stats.skippedLines == 3)
        #expect(index.stats.skippedReasons == ["duplicate key (the first line with this key is kept)": 3])
        let found = try index.editions(isbns: [first, second])
        #expect(found.keys.sorted() == [first], "the second line's ISBN is not indexed")
        #expect(found[first]?.title == "First Line")
        #expect(found[first]?.authors == ["Ann Author"])
        #expect(
            try !index.candidates(title: "Second Line", author: "Ann Author", limit: 5).contains { $0.title == "Second Line" })
        // The counts are kept in the index: a run that reuses it reports the same.
        let reused = try CatalogIndex.open(
            dumps: [directory.file("editions.txt.gz")], cacheDirectory: directory.file("cache"), log: quiet)
        #expect(!reused.built)
        #expect(reused.stats.duplicateKeys == 3)
        #expect(reused.stats.skippedReasons == index.stats.skippedReasons)
    }

    @Test(.bug(id: 14)) func aKeyInTwoDumpsIsTakenFromTheFirstListed() throws {
        let directory = TemporaryDirectory("lookup-catalog")
        directory.write(
            "a.txt",
            LookupFixtures.dumpLine("edition", "/books/OL7M", #"{"title": "From A", "authors": [{"key": "/authors/OL1A"}]}"#)
                + LookupFixtures.dumpLine("author", "/authors/OL1A", #"{"name": "Ann Author"}"#))
        directory.write(
            "b.txt",
            LookupFixtures.dumpLine("edition", "/books/OL7M", #"{"title": "From B", "authors": [{"key": "/authors/OL1A"}]}"#))
        let cache = directory.file("cache")
        let ab = try CatalogIndex.open(
            dumps: [directory.file("a.txt"), directory.file("b.txt")], cacheDirectory: cache, log: quiet)
        #expect(try ab.candidates(title: "From A", author: "Ann Author", limit: 5).map(\.editionKey) == ["/books/OL7M"])
        #expect(try ab.candidates(title: "From B", author: nil, limit: 5).isEmpty)
        let ba = try CatalogIndex.open(
            dumps: [directory.file("b.txt"), directory.file("a.txt")], cacheDirectory: cache, log: quiet)
        #expect(ba.built, "another order is another catalog")
        #expect(try ba.candidates(title: "From B", author: nil, limit: 5).map(\.title) == ["From B"])
        #expect(ba.stats.duplicateKeys == 1)
    }

    @Test(
        .bug(id: 14),
        arguments: [
            ("/books/OL1M", 1), ("/books/OL0M", 0), ("/books/OL123456789M", 123456789), ("/books/OL01M", nil),
            ("/books/OLM", nil),
            ("/books/OL1W", nil), ("/works/OL1M", nil), ("/books/OL1x2M", nil), ("books/OL1M", nil),
            ("/books/OL99999999999999999999M", nil),
        ] as [(String, Int?)])
    func onlyCanonicalEditionKeysAreNumbered(_ key: String, _ expected: Int?) {
        let number = CatalogDumpRecord.KeyKind.edition.number(key)
        #expect(number == expected)
        if let number { #expect(CatalogDumpRecord.KeyKind.edition.key(number) == key) }
        // Every key has an id: its number, or a negative hash, the same in every run.
        let id = CatalogDumpRecord.KeyKind.edition.id(key)
        #expect(id == number ?? id)
        #expect((id < 0) == (number == nil))
        #expect(id != CatalogDumpRecord.KeyKind.work.id(key) || number != nil)
    }

    @Test(.bug(id: 14)) func hostileDumpValuesAreReadOrSkippedWithAReason() throws {
        let directory = TemporaryDirectory("lookup-catalog")
        let isbn = LookupFixtures.isbn13("978000000021")
        let dump = [
            // Wrong types are ignored, strings are unescaped, pages are read from text.
            LookupFixtures.dumpLine(
                "edition", "/books/OL1M",
                #"{"title": "Caf\u00e9 \"Noir\"", "subtitle": null, "isbn_13": ["\#(isbn)", 5], "publishers": "not a list", "number_of_pages": "320 p.", "covers": [1.5, -1, 42], "works": [{"key": "/works/OL1W"}], "authors": [{"key": "/authors/OL1A"}], "extra": {"deep": [1, {"x": null}]}}"#
            ),
            LookupFixtures.dumpLine("author", "/authors/OL1A", #"{"name": "  Ann Author  "}"#),
            LookupFixtures.dumpLine(
                "work", "/works/OL1W",
                #"{"description": {"type": "/type/text", "value": "About it"}, "authors": [{"author": "/authors/OL1A"}]}"#),
            LookupFixtures.dumpLine("edition", "/books/OL2M", #"{"title": 12, "authors": [{"key": "/authors/OL1A"}]}"#),
            LookupFixtures.dumpLine("edition", "/books/OL3M", #"{"title": "Trailing"} junk"#),
            LookupFixtures.dumpLine("edition", "/books/OL4M", #"{"title": "Bad escape \x"}"#),
            LookupFixtures.dumpLine(
                "edition", "/books/OL5M", String(repeating: "[", count: 200) + String(repeating: "]", count: 200)),
            LookupFixtures.dumpLine(
                "edition", "/books/OL06M", #"{"title": "Leading zero", "authors": [{"key": "/authors/OL1A"}]}"#),
            LookupFixtures.dumpLine("edition", "/books/ia:x", #"{"title": "Odd key", "authors": [{"key": "/authors/OL1A"}]}"#),
            LookupFixtures.dumpLine(
                "edition", "/books/OL7M", #"{"title": "Odd author key only", "authors": [{"key": "/a/OL1A"}]}"#),
            LookupFixtures.dumpLine(
                "edition", "/books/OL8M", "{\"title\": \"Raw \u{1}control\", \"authors\": [{\"key\": \"/authors/OL1A\"}]}"),
        ].joined()
        directory.write("dump.txt", dump)
        let index = try CatalogIndex.open(
            dumps: [directory.file("dump.txt")], cacheDirectory: directory.file("cache"), log: quiet)
        #expect(index.stats.editions == 4)
        #expect(index.stats.skippedReasons == ["edition without title": 1, "invalid JSON": 4])
        // Keys of another shape are kept and given back exactly.
        #expect(try index.candidates(title: "Leading zero", author: nil, limit: 5).map(\.editionKey) == ["/books/OL06M"])
        #expect(try index.candidates(title: "Odd key", author: nil, limit: 5).map(\.editionKey) == ["/books/ia:x"])
        let edition = try #require(try index.editions(isbns: [isbn])[isbn])
        #expect(edition.title == "Café \"Noir\"")
        #expect(edition.subtitle == nil)
        #expect(edition.publishers == nil)
        #expect(edition.pages == 320)
        #expect(edition.coverId == 42)
        #expect(edition.authors == ["Ann Author"])
        #expect(edition.description == "About it")
        #expect(edition.workKey == "/works/OL1W")
    }

    @Test(.bug(id: 12)) func stopSignalAfterTheLoadStopsTheIndexingAndLeavesNoIndex() throws {
        // Fewer lines than one batch: the first poll comes from the phase after the load (key
        // tables, full-text index), which used to ignore the signal.
        let directory = TemporaryDirectory("lookup-catalog")
        var dump = ""
        for number in 1...200 {
            dump += LookupFixtures.dumpLine(
                "edition", "/books/OL\(number)M", #"{"title": "T \#(number)", "works": [{"key": "/works/OL1W"}]}"#)
        }
        directory.write("dump.txt", dump)
        let polls = Counter()
        #expect(throws: TryLaterError.self) {
            try CatalogIndex.open(
                dumps: [directory.file("dump.txt")], cacheDirectory: directory.file("cache"), log: quiet,
                isCancelled: {
                    polls.increment(); return true
                })
        }
        #expect(polls.value >= 1)
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

    @Test(
        arguments: [
            ("March 1965", 1965), ("c1965", 1965), ("1965-03-01", 1965), ("n.d.", nil), ("12345", nil), ("Printed 2003", 2003),
        ] as [(String, Int?)])
    func publishYear(_ text: String, _ expected: Int?) {
        #expect(CatalogIndex.year(text) == expected)
    }
}

/// Counts calls from a non-escaping closure.
final class Counter: @unchecked Sendable {
    private(set) var value = 0
    func increment() { value += 1 }
}

@Suite struct LookupCacheTests {
    @Test(.bug(id: 4)) func negativeAnswersExpireSoonerThanPositiveOnes() throws {
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

/// The author query's walk over the surname's editions answers exactly as the full-text query it
/// replaces: ASCII titles, subtitles, non-ASCII titles (asked of FTS5 row by row), `&`, words
/// that only prefix a title word, a prolific surname (past the scan limit), in rowid order and
/// within the limit.
@Suite struct CatalogAuthorQueryTests {
    @Test(.bug(id: 12)) func authorWalkEqualsTheFullTextQuery() throws {
        let directory = TemporaryDirectory("lookup-catalog-author")
        var lines = [
            LookupFixtures.dumpLine("author", "/authors/OL1A", #"{"name": "Ann Zedd"}"#),
            LookupFixtures.dumpLine("author", "/authors/OL2A", #"{"name": "Bo Many"}"#),
            LookupFixtures.dumpLine("author", "/authors/OL3A", #"{"name": "Cy Zedd"}"#),
        ]
        let zedd = [
            #""title": "Glass River""#, #""title": "Château de Glass""#, #""title": "Night", "subtitle": "A River Tale""#,
            #""title": "Other Book""#, #""title": "Glasses""#, #""title": "Rivière & Nuit""#, #""title": "Salt & Glass""#,
            #""title": "GLASS—river""#, #""title": "Ǵlass Ríver""#, #""title": "And Then""#, #""title": "Bread and Salt""#,
        ]
        for (number, fields) in zedd.enumerated() {
            let author = number % 3 == 2 ? "OL3A" : "OL1A"
            lines.append(
                LookupFixtures.dumpLine(
                    "edition", "/books/OL\(number + 1)M", #"{\#(fields), "authors": [{"key": "/authors/\#(author)"}]}"#))
        }
        // A prolific surname: more editions than the walk tests before running the full-text query.
        for number in 0..<(CatalogIndex.authorScanLimit + 50) {
            let title = number % 7 == 0 ? "Glass Volume \(number)" : "Volume \(number)"
            lines.append(
                LookupFixtures.dumpLine(
                    "edition", "/books/OL\(1000 + number)M", #"{"title": "\#(title)", "authors": [{"key": "/authors/OL2A"}]}"#))
        }
        try GzipFixture.write(text: lines.joined(), to: directory.file("dump.txt.gz"))
        let index = try CatalogIndex.open(
            dumps: [directory.file("dump.txt.gz")], cacheDirectory: directory.file("cache"),
            log: Logfmt(quiet: true))
        let queries: [(String, [String])] = [
            ("zedd", ["glass"]), ("zedd", ["river"]), ("zedd", ["glass", "river", "night"]), ("zedd", ["riviere"]),
            ("zedd", ["nuit"]), ("zedd", ["and"]), ("zedd", ["salt", "then"]), ("zedd", ["glas"]), ("zedd", ["chateau"]),
            ("many", ["glass"]), ("many", ["volume"]), ("many", ["nothing"]), ("nobody", ["glass"]),
        ]
        for (surname, words) in queries {
            for limit in [1, 2, 60] {
                let walked = try index.authorEditions(surname: surname, words: words, limit: limit)
                let fullText = try index.fullTextAuthorEditions(surname: surname, words: words, limit: limit)
                #expect(walked == fullText, "\(surname) \(words) limit \(limit)")
            }
        }
        // The cases above found something (the comparison is not between two empty answers).
        #expect(try index.fullTextAuthorEditions(surname: "zedd", words: ["glass"], limit: 60).count >= 3)
        #expect(try index.fullTextAuthorEditions(surname: "many", words: ["glass"], limit: 60).count == 60)
    }
}
