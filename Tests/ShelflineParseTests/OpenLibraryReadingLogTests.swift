import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import Testing

@testable import ShelflineParse

/// Open Library's reading log has no titles: every row is kept with its keys and shelf.
@Suite struct OpenLibraryReadingLogTests {
    @Test(.bug(id: 40)) func everyRowIsKeptWithItsKeysAndShelf() throws {
        let csv =
            "\u{FEFF}Work Id,Edition Id,Bookshelf\r\nOL45804W,,Want to Read\r\nOL27448W,OL7353617M,Currently Reading\r\n"
            + ",OL1M,Already Read\r\n\"OL9W\",\"\",\"Custom Shelf\"\r\n"
        let run = StageRun(csv)
        #expect(run.error == nil, "\(String(describing: run.error))")
        #expect(run.report?.rowsRejected == 0 && run.records.count == 4)
        #expect(run.records.map(\.format) == Array(repeating: .openlibrary, count: 4))
        #expect(run.records.map(\.title) == ["OL45804W", "OL27448W", "OL1M", "OL9W"])
        #expect(run.records.map(\.shelf) == ["to-read", "currently-reading", "read", "Custom Shelf"])
        #expect(
            run.records.map(\.identifiers) == [
                ["openlibrary-work": "OL45804W"], ["openlibrary-work": "OL27448W", "openlibrary-edition": "OL7353617M"],
                ["openlibrary-edition": "OL1M"], ["openlibrary-work": "OL9W"],
            ])
        #expect(run.records.allSatisfy { $0.author == nil && $0.isbn13 == nil })
        #expect(run.records.allSatisfy { $0.titleIsPlaceholder == true }, "the key stands in for a title: lookup asks by it")
    }

    /// A row naming no book at all is the only one refused, with that reason.
    @Test(.bug(id: 40)) func aRowWithoutAnyKeyIsRejectedWithItsReason() throws {
        let run = StageRun("Work Id,Edition Id,Bookshelf\n,,Want to Read\nOL1W,,Want to Read\n")
        #expect(run.records.map(\.title) == ["OL1W"])
        #expect(run.rejects.map(\.reason) == ["no Work Id or Edition Id: nothing names the book"])
    }
}
