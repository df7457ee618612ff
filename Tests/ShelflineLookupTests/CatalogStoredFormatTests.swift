import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLookup

/// Schema 5's compact stored edition format (issue 12): what goes in comes back byte for byte.
@Suite struct CatalogStoredFormatTests {
    let quiet = Logfmt(quiet: true)

    @Test(
        .bug(id: 12),
        arguments: [
            "", "Short.", String(repeating: "A long description that repeats. ", count: 20),
            String(repeating: "Über die Brücke — 橋を渡る 🌉 ", count: 40), String(repeating: "x", count: 5000),
        ])
    func descriptionsComeBackAsStoredUpToTheCut(_ description: String) throws {
        let stored = StoredDescription.Compressor().store(description)
        let expected = String(description.prefix(StoredDescription.maximumCharacters))
        switch stored {
        case .text(let text):
            #expect(text == expected)
        case .deflated(let bytes):
            #expect(bytes.count < expected.utf8.count)
            #expect(bytes.withUnsafeBytes(StoredDescription.Decompressor().inflate) == expected)
        }
    }

    @Test(.bug(id: 12)) func aDamagedDeflatedDescriptionIsNil() {
        let stored = StoredDescription.Compressor().store(String(repeating: "A description. ", count: 20))
        guard case .deflated(var bytes) = stored else {
            Issue.record("expected a deflated description")
            return
        }
        bytes.removeLast(bytes.count / 2)
        #expect(bytes.withUnsafeBytes(StoredDescription.Decompressor().inflate) == nil)
        #expect([UInt8]().withUnsafeBytes(StoredDescription.Decompressor().inflate) == nil)
    }

    @Test(.bug(id: 12)) func compactColumnsGiveBackTheDumpsText() throws {
        let directory = TemporaryDirectory("lookup-catalog")
        let long = String(repeating: "The story of a bridge and a river. ", count: 10)
        var isbns: [String] = []
        let dates = ["1965", "0123", "1.50", "-0", "-12", "March 1965", "99999999999999999999", "7"]
        // Publisher lists by id, repeated and not; a numeric name, a long one, one holding the separator.
        let publishers: [[String]?] = [
            ["Bench Press"], ["1984"], ["Bench Press", "Other House"], nil, ["Bench Press"],
            [String(repeating: "Long Name ", count: 12)], ["1984"], ["A\\u001fB"],
        ]
        var dump = ""
        for (number, date) in dates.enumerated() {
            let isbn = LookupFixtures.isbn13("97800000\(1000 + number)")
            isbns.append(isbn)
            let publisherJSON =
                publishers[number].map { #", "publishers": ["# + $0.map { "\"\($0)\"" }.joined(separator: ", ") + "]" } ?? ""
            let authors =
                number % 2 == 0 ? #"[{"key": "/authors/OL1A"}]"# : #"[{"key": "/authors/OL2A"}, {"key": "/authors/OL1A"}]"#
            dump += LookupFixtures.dumpLine(
                "edition", "/books/OL\(number + 1)M",
                #"{"title": "Book \#(number)", "isbn_13": ["\#(isbn)"], "publish_date": "\#(date)", "authors": \#(authors), "works": [{"key": "/works/OL\#(number % 3 + 1)W"}]\#(publisherJSON)}"#
            )
        }
        dump += LookupFixtures.dumpLine("work", "/works/OL1W", #"{"description": "\#(long)"}"#)
        dump += LookupFixtures.dumpLine("work", "/works/OL2W", #"{"description": "Short one."}"#)
        dump += LookupFixtures.dumpLine("author", "/authors/OL1A", #"{"name": "Ann Author"}"#)
        dump += LookupFixtures.dumpLine("author", "/authors/OL2A", #"{"name": "Ben Writer"}"#)
        directory.write("dump.txt", dump)
        let index = try CatalogIndex.open(
            dumps: [directory.file("dump.txt")], cacheDirectory: directory.file("cache"), log: quiet)
        let found = try index.editions(isbns: isbns)
        for (number, date) in dates.enumerated() {
            let edition = try #require(found[isbns[number]])
            #expect(edition.publishDate == date)
            #expect(edition.publishers == (number == 7 ? ["A B"] : publishers[number]))
            #expect(edition.year == CatalogIndex.year(date))
            #expect(edition.authors == (number % 2 == 0 ? ["Ann Author"] : ["Ben Writer", "Ann Author"]))
            #expect(edition.description == [long, "Short one.", nil][number % 3])
        }
    }
}
