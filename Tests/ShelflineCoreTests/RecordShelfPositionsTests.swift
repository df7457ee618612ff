import Foundation
import ShelflineCore
import Testing

/// Issue 25: a record's `shelfPositions` is written as positions aligned with `shelves` when it lines
/// up with them, and read in that shape and in the older `{shelf, position}` object shape.
@Suite struct RecordShelfPositionsTests {
    static let prefix = #"{"byteLength":1,"byteOffset":0,"format":"goodreads","line":2,"#

    func record(shelves: [String]?, positions: [ShelfPosition]?) -> BookRecord {
        var record = BookRecord(format: .goodreads, line: 2, byteOffset: 0, byteLength: 1, title: "T")
        record.shelves = shelves
        record.shelfPositions = positions
        return record
    }

    func json(_ record: BookRecord) throws -> String {
        String(decoding: try JSONEncoder.shelfline.encode(record), as: UTF8.self)
    }

    /// What the fast path and `JSONDecoder` make of `text`; both must agree.
    func read(_ text: String) throws -> BookRecord {
        let line = Array(text.utf8)
        let decoded = try JSONDecoder().decode(BookRecord.self, from: Data(line))
        let scanned = line.withUnsafeBytes { BookRecordScan.scan($0, fields: .all) }
        #expect(scanned?.record == decoded, "\(text)")
        return decoded
    }

    @Test(
        .bug(id: 25),
        arguments: [
            // Every shelf with a position; one without (null); a shelf name twice.
            ([("to-read", 339), ("fav", 12)], #"[339,12]"#),
            ([("to-read", 339), ("fav", nil), ("é", 4)], #"[339,null,4]"#),
            ([("to-read", 1), ("to-read", 2)], #"[1,2]"#),
            ([("fav", nil)], #"[null]"#),
        ] as [([(String, Int?)], String)])
    func positionsLiningUpWithShelvesAreWrittenAsPositionsOnly(_ items: [(String, Int?)], _ compact: String) throws {
        let positions = items.map { ShelfPosition(shelf: $0.0, position: $0.1) }
        let original = record(shelves: items.map(\.0), positions: positions)
        let text = try json(original)
        #expect(text.contains(#""shelfPositions":"# + compact + ","), "\(text)")
        #expect(try read(text) == original)
    }

    @Test(
        .bug(id: 25),
        arguments: [
            (["fav", "to-read"], [("to-read", 339), ("fav", 12)]),  // another order
            (["to-read"], [("to-read", 339), ("fav", 12)]),  // a shelf `shelves` lacks
            (["to-read", "fav", "extra"], [("to-read", 339), ("fav", 12)]),  // a shelf without any item
            (["caf\u{E9}"], [("cafe\u{301}", 1)]),  // canonically equal, other bytes: kept verbatim
            (nil, [("to-read", 339)]),  // no shelves at all
        ] as [([String]?, [(String, Int?)])])
    func listsThatDoNotLineUpKeepTheObjectShape(_ shelves: [String]?, _ items: [(String, Int?)]) throws {
        let original = record(shelves: shelves, positions: items.map { ShelfPosition(shelf: $0.0, position: $0.1) })
        let text = try json(original)
        #expect(text.contains(#""shelfPositions":[{"#), "\(text)")
        let back = try read(text)
        #expect(back == original)
        #expect(back.shelfPositions?.map { Array($0.shelf.utf8) } == items.map { Array($0.0.utf8) })
    }

    @Test(.bug(id: 25)) func objectShapeOfOlderRunsIsStillRead() throws {
        let text =
            Self.prefix + #""shelfPositions":[{"position":267,"shelf":"g-before"},{"shelf":"fav"}],"#
            + #""shelves":["g-before","fav"],"title":"T"}"#
        let expected = record(
            shelves: ["g-before", "fav"],
            positions: [ShelfPosition(shelf: "g-before", position: 267), ShelfPosition(shelf: "fav")])
        #expect(try read(text) == expected)
        // Written again, it takes the compact shape.
        #expect(try json(expected).contains(#""shelfPositions":[267,null],"#))
    }

    @Test(
        .bug(id: 25),
        arguments: [
            (#"[1,2,3]"#, #"["a","b"]"#, "3 positions for 2 shelves"),  // longer than shelves
            (#"[1]"#, #"["a","b"]"#, "1 positions for 2 shelves"),  // shorter
            (#"[1]"#, nil, "1 positions for 0 shelves"),  // no shelves
            (#"[1.5,2]"#, #"["a","b"]"#, "shelfPositions"),  // not an integer
            (#"["1",2]"#, #"["a","b"]"#, "shelfPositions"),
            (#"[true,2]"#, #"["a","b"]"#, "shelfPositions"),
            (#"[1,{"shelf":"b","position":2}]"#, #"["a","b"]"#, "mixes"),
            (#"{"a":1}"#, #"["a"]"#, "shelfPositions"),
        ] as [(String, String?, String)])
    func positionsThatDoNotFitAreAnInvalidRecord(_ positions: String, _ shelves: String?, _ reason: String) throws {
        var text = Self.prefix + #""shelfPositions":"# + positions + ","
        if let shelves { text += #""shelves":"# + shelves + "," }
        text += #""title":"T"}"#
        let line = Array(text.utf8)
        #expect(line.withUnsafeBytes { BookRecordScan.scan($0, fields: .all) } == nil)
        do {
            _ = try line.withUnsafeBytes { try BookRecordScan.decode($0, fields: .all, path: "enriched.ndjson.gz", line: 9) }
            Issue.record("accepted \(text)")
        } catch let error as FileError {
            let message = "\(error)"
            #expect(message.hasPrefix("enriched.ndjson.gz:9: invalid record"), "\(message)")
            #expect(message.contains(reason), "\(message)")
            #expect(!message.contains("\n"))
            #expect(error.exitStatus == .dataError)
        }
    }
}
