import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineParse

/// Issue 25: parse writes `Bookshelves with positions` as positions aligned with `shelves` when the
/// two cells name the same shelves in the same order, else as `{shelf, position}` objects.
@Suite struct ShelfPositionsParseTests {
    /// A 31-column Goodreads row with only the title, author and the two shelf cells filled in.
    func row(_ id: Int, shelves: String, positions: String) -> String {
        var cells = Array(repeating: "", count: 31)
        cells[0] = String(id)
        cells[1] = "Book \(id)"
        cells[2] = "Ann Author"
        cells[16] = "\"\(shelves)\""
        cells[17] = "\"\(positions)\""
        cells[18] = "to-read"
        return cells.joined(separator: ",")
    }

    @Test(.bug(id: 25)) func positionsLiningUpWithShelvesAreWrittenAsPositionsOnly() throws {
        let csv =
            [
                goodreadsHeader31,
                row(1, shelves: "to-read, fav, to-read", positions: "to-read (#339), fav, to-read (#2)"),
                row(2, shelves: "fav, to-read", positions: "to-read (#339), fav (#1)"),
                row(3, shelves: "café", positions: "café (#5)"),
                row(4, shelves: "fav", positions: "fav (#1), to-read (#7)"),
            ].joined(separator: "\n") + "\n"
        let run = StageRun(csv)
        #expect(run.error == nil)
        let lines = try PassThroughLine.lines(of: run.directory.file("out.ndjson.gz")).map { String(decoding: $0, as: UTF8.self) }
        try #require(lines.count == 4 && run.records.count == 4)
        #expect(lines[0].contains(#""shelfPositions":[339,null,2],"shelves":["to-read","fav","to-read"]"#), "\(lines[0])")
        #expect(lines[1].contains(#""shelfPositions":[{"position":339,"shelf":"to-read"},{"position":1,"shelf":"fav"}]"#))
        #expect(lines[2].contains(#""shelfPositions":[5],"shelves":["café"]"#), "\(lines[2])")
        #expect(lines[3].contains(#""shelfPositions":[{"position":1,"shelf":"fav"},{"position":7,"shelf":"to-read"}]"#))
        #expect(
            run.records[0].shelfPositions == [
                ShelfPosition(shelf: "to-read", position: 339), ShelfPosition(shelf: "fav"),
                ShelfPosition(shelf: "to-read", position: 2),
            ])
        #expect(
            run.records[1].shelfPositions == [
                ShelfPosition(shelf: "to-read", position: 339),
                ShelfPosition(shelf: "fav", position: 1),
            ])
        #expect(run.records[2].shelfPositions == [ShelfPosition(shelf: "café", position: 5)])
        #expect(run.records[3].shelves == ["fav"] && run.records[3].shelfPositions?.count == 2)
    }

    @Test(.bug(id: 25)) func fastEncoderWritesPositionsAsJSONEncoderDoes() throws {
        var aligned = BookRecord(format: .goodreads, line: 2, title: "T")
        aligned.shelves = ["a", "b", "a"]
        aligned.shelfPositions = [
            ShelfPosition(shelf: "a", position: 1), ShelfPosition(shelf: "b"), ShelfPosition(shelf: "a", position: 0),
        ]
        var reordered = aligned
        reordered.shelves = ["b", "a", "a"]
        var unshelved = aligned
        unshelved.shelves = nil
        var encoder = BookRecordJSON()
        for record in [aligned, reordered, unshelved] {
            try encoder.encode(record)
            #expect(
                String(decoding: encoder.bytes, as: UTF8.self)
                    == String(decoding: try JSONEncoder.shelfline.encode(record), as: UTF8.self))
            #expect(try JSONDecoder().decode(BookRecord.self, from: Data(encoder.bytes)) == record)
        }
    }
}
