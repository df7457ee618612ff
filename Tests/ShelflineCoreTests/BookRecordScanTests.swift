import Foundation
import ShelflineCore
import TestSupport
import Testing

/// Issue 12: the byte-level record codec reads what `JSONDecoder` reads, and refuses what it cannot vouch for.
@Suite struct BookRecordScanTests {
    /// Records covering every field, escapes, non-ASCII text and every annotation, from a fixed seed.
    static func records() -> [BookRecord] {
        var generator = SeededGenerator(seed: 12)
        let texts = ["Dune", "Ünïcødé — 日本語 🦊", "quote \" back\\slash / tab\t nl\n", "\u{1}\u{1F}", "", "a/b"]
        func text() -> String { texts[Int.random(in: 0..<texts.count, using: &generator)] }
        func maybe<T>(_ value: @autoclosure () -> T) -> T? { Bool.random(using: &generator) ? value() : nil }
        return (0..<300).map { index in
            var record = BookRecord(
                format: [.goodreads, .storygraph, .librarything, .generic][index % 4], line: index + 2, byteOffset: index * 100,
                byteLength: 99, title: text())
            record.rowId = maybe(String(index))
            record.titleBase = maybe(text())
            record.titleIsPlaceholder = maybe(true)
            record.series = maybe(text())
            record.seriesPosition = maybe("1.5")
            record.author = maybe(text())
            record.additionalAuthors = maybe([text(), text()])
            record.isbn13 = maybe("9780441172719")
            record.isbn10 = maybe("044117271X")
            record.isbnRaw = maybe("=\"12\"")
            record.asin = maybe("B00ABC")
            record.identifiers = maybe(["goodreads": text(), "amazon": "B1"])
            record.publisher = maybe(text())
            record.binding = maybe("Paperback")
            record.pages = maybe(Int.random(in: 0...2000, using: &generator))
            record.year = maybe(Int.random(in: -500...2030, using: &generator))
            record.originalYear = maybe(-44)
            record.rating = maybe([0.5, 3, 4.25, 5][index % 4])
            record.shelf = maybe("to-read")
            record.shelves = maybe([text(), "classics"])
            record.dateAdded = maybe("2020-01-31")
            record.reads = maybe([ReadSpan(start: "2020-01-01", end: nil), ReadSpan(start: nil, end: "2021-02-02"), ReadSpan()])
            record.readCount = maybe(3)
            record.review = maybe(String(repeating: text(), count: 20))
            record.notes = maybe(text())
            record.owned = maybe(index % 2 == 0)
            record.dedupe = maybe(
                DedupeMark(
                    status: [.new, .duplicateInFile, .inLibrary][index % 3], key: "ta:" + text(),
                    firstLine: maybe(2), bookId: maybe("b0123456789abcdef")))
            record.match = maybe(
                MatchResult(
                    status: MatchStatus.allCases[index % 4], editionKey: maybe("/books/OL1M"),
                    workKey: maybe("/works/OL1W"),
                    candidates: maybe([
                        MatchCandidate(
                            key: "/books/OL2M", workKey: maybe("/works/OL2W"),
                            title: text(), authors: [text()], score: 0.75)
                    ]),
                    reason: maybe("no candidate"), source: maybe("catalog")))
            if Bool.random(using: &generator) {
                var metadata = EditionMetadata(source: "openlibrary")
                metadata.editionKey = maybe("/books/OL3M")
                metadata.title = maybe(text())
                metadata.subtitle = maybe(text())
                metadata.authors = maybe([text()])
                metadata.publishers = maybe([text()])
                metadata.isbn13 = maybe("9780441172719")
                metadata.pages = maybe(412)
                metadata.publishDate = maybe("1965")
                metadata.year = maybe(1965)
                metadata.coverId = maybe(12345)
                metadata.description = maybe(text())
                record.metadata = metadata
            }
            return record
        }
    }

    func scan(_ line: [UInt8], _ fields: BookRecordScan.Fields) -> BookRecordScan.Result? {
        line.withUnsafeBytes { BookRecordScan.scan($0, fields: fields) }
    }

    @Test(.bug(id: 12)) func scanReadsWhatJSONDecoderReads() throws {
        for record in Self.records() {
            let line = Array(try JSONEncoder.shelfline.encode(record))
            let all = try #require(scan(line, .all), "\(String(decoding: line, as: UTF8.self))")
            #expect(all.record == record)
            #expect(all.record == (try JSONDecoder().decode(BookRecord.self, from: Data(line))))
            #expect(
                all.hasDedupe == (record.dedupe != nil) && all.hasMatch == (record.match != nil)
                    && all.hasMetadata == (record.metadata != nil))
            // Identity mode: the fields dedupe, lookup and merge's first pass use, and nothing else.
            let identity = try #require(scan(line, .identity))
            var expected = BookRecord(
                format: record.format, line: record.line, byteOffset: record.byteOffset,
                byteLength: record.byteLength, title: record.title)
            expected.rowId = record.rowId
            expected.titleBase = record.titleBase
            expected.titleIsPlaceholder = record.titleIsPlaceholder  // lookup asks by key
            expected.identifiers = record.identifiers
            expected.seriesPosition = record.seriesPosition  // the title identity's series number
            expected.author = record.author
            expected.additionalAuthors = record.additionalAuthors
            expected.isbn13 = record.isbn13
            expected.isbn10 = record.isbn10
            expected.publisher = record.publisher
            expected.pages = record.pages
            expected.year = record.year
            expected.dedupe = record.dedupe
            expected.match = record.match
            #expect(identity.record == expected)
        }
    }

    @Test(
        .bug(id: 12),
        arguments: [
            #"  { "format" : "goodreads" , "line":2,"byteOffset":0,"byteLength":1,"title":"T","author":null,"extra":{"a":[1,2.5e3,true,null]} } "#,
            #"{"format":"storygraph","line":3,"byteOffset":0,"byteLength":1,"title":"\u00e9\ud83e\udd8a\/x","rating":4.0}"#,
        ])
    func scanAcceptsAnyValidLayout(_ text: String) throws {
        let line = Array(text.utf8)
        let decoded = try JSONDecoder().decode(BookRecord.self, from: Data(line))
        #expect(scan(line, .all)?.record == decoded)
    }

    /// Names are matched as bytes (issue 25): a name spelled with an escape is still the field
    /// JSONDecoder reads, in either mode and at any depth, never a member silently skipped.
    @Test(
        .bug(id: 25),
        arguments: [
            #"{"format":"goodreads","line":2,"byteOffset":0,"byteLength":1,"title":"T","isbn\u00313":"9780441013593"}"#,
            #"{"format":"goodreads","line":2,"byteOffset":0,"byteLength":1,"title":"T","revie\u0077":"Loved it"}"#,
            #"{"format":"goodreads","line":2,"byteOffset":0,"byteLength":1,"title":"T","match":{"status":"matchedByIsbn","edition\u004bey":"OL1M"}}"#,
            #"{"format":"goodreads","line":2,"byteOffset":0,"byteLength":1,"title":"T","reads":[{"\u0073tart":"2020-01-02"}]}"#,
            #"{"format":"goodreads","line":2,"byteOffset":0,"byteLength":1,"\u0074itle":"T"}"#,
        ])
    func escapedMemberNamesDecodeAsJSONDecoderDoes(_ text: String) throws {
        let line = Array(text.utf8)
        let expected = try JSONDecoder().decode(BookRecord.self, from: Data(line))
        let all = try line.withUnsafeBytes { try BookRecordScan.decode($0, fields: .all, path: "in.ndjson.gz", line: 2) }
        #expect(all.record == expected)
        // `.identity` reads only what stages decide on: those fields, whatever spells their names.
        let identity = try line.withUnsafeBytes {
            try BookRecordScan.decode($0, fields: .identity, path: "in.ndjson.gz", line: 2)
        }
        #expect(identity.record.title == expected.title)
        #expect(identity.record.isbn13 == expected.isbn13)
        #expect(identity.record.match == expected.match)
    }

    @Test(
        .bug(id: 12),
        arguments: [
            #"{"format":"goodreads","line":"2","byteOffset":0,"byteLength":1,"title":"T"}"#,  // wrong type
            #"{"format":"goodreads","line":2,"byteOffset":0,"byteLength":1}"#,  // no title
            #"{"format":"","line":2,"byteOffset":0,"byteLength":1,"title":"T"}"#,  // no format name (any other names a format)
            #"{"format":"goodreads","line":2,"byteOffset":0,"byteLength":1,"title":"T""#,  // truncated
            #"{"format":"goodreads","line":2,"byteOffset":0,"byteLength":1,"title":"T"} x"#,  // trailing bytes
            #"{"format":"goodreads","line":2,"byteOffset":0,"byteLength":1,"title":"T","match":{"status":"maybe"}}"#,
            #"{"format":"goodreads","line":2,"byteOffset":0,"byteLength":1,"title":"T","pages":1.5}"#,
        ])
    func badLinesAreRefusedNamingFileAndLine(_ text: String) throws {
        let line = Array(text.utf8)
        #expect(scan(line, .all) == nil)
        #expect(scan(line, .identity) == nil || text.contains("pages"))
        let decoderAccepts = (try? JSONDecoder().decode(BookRecord.self, from: Data(line))) != nil
        do {
            _ = try line.withUnsafeBytes { try BookRecordScan.decode($0, fields: .all, path: "in.ndjson.gz", line: 7) }
            #expect(decoderAccepts, "only lines JSONDecoder accepts get through")
        } catch let error as FileError {
            #expect(!decoderAccepts)
            #expect(error.localizedDescription.contains("in.ndjson.gz") || "\(error)".contains("in.ndjson.gz"))
            #expect("\(error)".contains("7"))
        }
    }

    @Test(.bug(id: 12)) func spliceAppendsMembersAndKeepsTheRecordBytes() throws {
        var record = BookRecord(format: .goodreads, line: 2, title: "Dune")
        record.review = "Long \"review\"\n"
        let line = Array(try JSONEncoder.shelfline.encode(record))
        let match = Array(try JSONEncoder.shelfline.encode(MatchResult(status: .notEnriched, reason: "no candidate")))
        var out: [UInt8] = []
        line.withUnsafeBytes { BookRecordScan.splice($0, adding: [("match", match)], into: &out) }
        #expect(Array(out.prefix(line.count - 1)) == Array(line.dropLast()))
        var expected = record
        expected.match = MatchResult(status: .notEnriched, reason: "no candidate")
        #expect(try JSONDecoder().decode(BookRecord.self, from: Data(out)) == expected)
        var empty: [UInt8] = []
        Array("{ }".utf8).withUnsafeBytes { BookRecordScan.splice($0, adding: [("a", Array("1".utf8))], into: &empty) }
        #expect(String(decoding: empty, as: UTF8.self) == #"{ "a":1}"#)
    }
}

/// Issue 12: strings of ASCII bytes skip UTF-8 validation; any other byte is still validated, at
/// every position of the 8-byte words the scanner reads.
@Suite struct JSONScannerStringTests {
    func string(_ bytes: [UInt8]) -> String? {
        (bytes).withUnsafeBytes { buffer in
            var scanner = JSONScanner(buffer)
            return scanner.string()
        }
    }

    func quoted(_ body: [UInt8]) -> [UInt8] { [UInt8(ascii: "\"")] + body + [UInt8(ascii: "\"")] }

    @Test(.bug(id: 12), arguments: 0..<20)
    func asciiAndUTF8StringsOfEveryLength(length: Int) {
        let ascii = String((0..<length).map { Character(Unicode.Scalar(UInt8(0x61 + $0 % 26))) })
        #expect(string(quoted(Array(ascii.utf8))) == ascii)
        let mixed = ascii + "é" + ascii
        #expect(string(quoted(Array(mixed.utf8))) == mixed)
    }

    @Test(.bug(id: 12), arguments: 0..<20)
    func invalidUTF8IsRefusedWherever(position: Int) {
        for bad: [UInt8] in [[0xC3, 0x28], [0xFF], [0xE2, 0x82], [0xED, 0xA0, 0x80]] {
            var body = [UInt8](repeating: UInt8(ascii: "a"), count: 20)
            body.insert(contentsOf: bad, at: position)
            #expect(string(quoted(body)) == nil, "\(bad) at \(position)")
        }
    }

    /// Escaped strings read as `JSONDecoder` reads them; a run of bad UTF-8 beside an escape is refused.
    @Test(
        .bug(id: 12),
        arguments: [
            #""a\nb""#, #""\"quoted\" \\ \/ \b\f\r\t""#, #""caf\u00e9 \ud83e\udd8a é\n日本""#, #""\u0000x""#,
            #""line one\nline two with a long plain run before the end""#,
        ])
    func escapedStringsReadAsJSONDecoderReadsThem(_ json: String) throws {
        let expected = try JSONDecoder().decode(String.self, from: Data(json.utf8))
        #expect(string(Array(json.utf8)) == expected)
    }

    @Test(.bug(id: 12)) func escapedStringsRefuseWhatJSONRefuses() {
        for body: [UInt8] in [
            Array(#"a\n"#.utf8) + [0xC3] + Array(#"\n"#.utf8),  // a lead byte cut off by an escape
            [0xC3] + Array(#"\u00a9"#.utf8),  // 0xC3 then the escape's own (whole) encoding
            Array(#"\n"#.utf8) + [0xA9],  // a continuation byte after an escape
            Array(#"\udc00"#.utf8), Array(#"\ud800x"#.utf8), Array(#"\q"#.utf8), Array(#"\u12"#.utf8),
        ] {
            #expect(string(quoted(body)) == nil, "\(body)")
        }
    }
}
