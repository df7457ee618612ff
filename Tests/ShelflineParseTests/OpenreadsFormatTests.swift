import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import Testing

@testable import ShelflineParse

let openreadsHeader =
    "title,subtitle,author,description,status,favourite,deleted,rating,pages,publication_year,isbn,olid,tags,my_review,notes,book_format,readings,date_added,date_modified"

@Suite struct OpenreadsFormatTests {
    /// Every column: several readings, tags and the favourite shelf, the review and notes; a
    /// deleted row is not imported and is counted with its reason.
    @Test(.bug(id: 40)) func everyExportColumnIsReadOrReported() throws {
        let csv =
            "\u{FEFF}" + openreadsHeader + "\r\n"
            + "Piranesi,,Susanna Clarke,\"A house of\nendless halls.\",finished,true,false,4.5,272,2020,9781635575637,OL29991316M,"
            + "fantasy|||||re-reads,\"Strange, \"\"lovely\"\".\",my copy,hardcover,"
            + "\"2021-01-02T00:00:00.000|2021-01-20T00:00:00.000|;2023-05-01T00:00:00.000|2023-05-09T00:00:00.000|3600\","
            + "2020-12-24T10:00:00.000,2023-05-09T10:00:00.000\r\n"
            + "Gone,,A Writer,,planned,false,true,,,,,,,,,,,2022-01-01T00:00:00.000,2022-01-02T00:00:00.000\r\n"
            + "Next,,B Writer,,in_progress,false,false,,,,,OL5W,,,,,2024-02-01T00:00:00.000||,,\r\n"
        let run = StageRun(csv)
        #expect(run.error == nil, "\(String(describing: run.error))")
        #expect(run.records.count == 2 && run.report?.rowsRead == 3)
        // The deleted row is skipped, not rejected: in the rejects file flagged so, counted apart.
        #expect(run.report?.rowsRejected == 0 && run.report?.rowsSkipped == 1)
        #expect(run.rejects.map(\.line) == [4] && run.rejects.first?.skipped == true)
        #expect(run.rejects.first?.reason.contains("deleted in the source") == true)
        let record = try #require(run.records.first)
        #expect(record.format == .openreads && record.title == "Piranesi" && record.author == "Susanna Clarke")
        #expect(record.shelf == "read" && record.shelves == ["fantasy", "re-reads", "favourites"])
        #expect(record.rating == 4.5 && record.pages == 272 && record.year == 2020 && record.isbn13 == "9781635575637")
        #expect(record.identifiers == ["openlibrary-edition": "OL29991316M"] && record.binding == "hardcover")
        #expect(record.review == "Strange, \"lovely\"." && record.notes == "my copy" && record.dateAdded == "2020-12-24")
        #expect(
            record.reads == [ReadSpan(start: "2021-01-02", end: "2021-01-20"), ReadSpan(start: "2023-05-01", end: "2023-05-09")])
        let next = try #require(run.records.last)
        #expect(next.shelf == "currently-reading" && next.reads == [ReadSpan(start: "2024-02-01", end: nil)])
        #expect(next.identifiers == ["openlibrary-work": "OL5W"] && next.shelves == nil)
        let reported = try #require(run.report?.notCarried).map { String($0.prefix { $0 != ":" }) }
        #expect(reported == ["subtitle", "description", "readings", "date_modified"])
    }

    @Test(
        .bug(id: 40),
        arguments: [("abandoned", "did-not-finish"), ("unfinished", "did-not-finish"), ("planned", "to-read"), ("", nil)])
    func statusIsTheReadingState(_ status: String, _ shelf: String?) throws {
        let run = StageRun("title,author,status,olid\nT,A,\(status),\n")
        #expect(try #require(run.records.first).shelf == shelf)
    }
}
