import Foundation
import ShelflineCore
import Testing

@testable import ShelflineLibrary

@Suite struct IndexLineScannerTests {
    func scan(_ text: String) -> IndexLineScanner.Fields? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { IndexLineScanner.scan($0) }
    }

    @Test func readsWhatTheDecoderReads() throws {
        var book = LibraryBook(id: "b0123456789abcdef", title: "\"Quoted\" \\ / é ✓ \u{1} \t")
        book.keys = ["isbn:9780441172719", "ta:caf\u{E9} \"x\"|guin", "ta:emoji 😀|x"]
        book.reviewDecision = "accepted"
        book.rating = 4.25
        book.reads = [ReadSpan(start: "2020-01-01", end: nil)]
        book.provenance = [Contribution(importId: "i", format: .goodreads, lines: [2, 3], rowIds: ["7"], fields: ["created"])]
        let fields = try #require(book.jsonLine.withUnsafeBytes { IndexLineScanner.scan($0) })
        #expect(fields.id == book.id)
        #expect(fields.keys == book.keys)
        // Escapes the project's writer never produces, as another JSON writer might.
        let other =
            #"{ "title" : "x", "keys" : ["\u0041\/b", "\ud83d\ude00"], "n": -1.5e3, "o": {"a": [true, false, null]}, "id":"b0000000000000001" }"#
        let parsed = try #require(scan(other))
        #expect(parsed.keys == ["A/b", "😀"])
        #expect(parsed.id == "b0000000000000001")
    }

    /// Names are compared as bytes: one with an escape may spell a member the index needs, so the
    /// line goes to `JSONDecoder`, which reads it.
    @Test func leavesAMemberNameWithAnEscapeToTheDecoder() throws {
        let line = #"{"id":"b0000000000000001","k\u0065ys":["a"],"provenance":[]}"#
        #expect(scan(line) == nil)
        let entry = try JSONDecoder().decode(LibraryFile.IndexEntry.self, from: Data(line.utf8))
        #expect(entry.keys == ["a"])
        #expect(scan(line.replacingOccurrences(of: "\\u0065", with: "e"))?.keys == ["a"])
    }

    @Test(arguments: [
        #"{"id":"b1","keys":["a"]"#,
        #"{"id":"b1","keys":["a"]} trailing"#,
        #"{"id":"b1","keys":["a",]}"#,
        #"{"id":"b1","keys":["a"],"x":tru}"#,
        #"{"id":"b1","keys":["a"],"x":01.}"#,
        #"{"id":"b1","keys":["a\q"]}"#,
        #"{"id":"b1","keys":["a"],"x":"unterminated}"#,
        "{\"id\":\"b1\",\"keys\":[\"a\tb\"]}",
        #"["id","b1"]"#,
        "",
    ])
    func rejectsMalformedLines(line: String) {
        #expect(scan(line) == nil)
    }
}
