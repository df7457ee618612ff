import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import Testing

@testable import ShelflineParse

let bookwyrmHeader =
    "title,author_text,remote_id,openlibrary_key,inventaire_id,librarything_key,goodreads_key,bnf_id,viaf,wikidata,asin,aasin,isfdb,isbn_10,isbn_13,oclc_number,start_date,finish_date,stopped_date,rating,review_name,review_cw,review_content,review_published,shelf,shelf_name,shelf_date"

@Suite struct BookWyrmFormatTests {
    /// Every column: identifiers kept under their schemes, the reading's dates, the review, the shelf.
    @Test(.bug(id: 40)) func everyExportColumnIsReadOrReported() throws {
        let csv =
            "\u{FEFF}" + bookwyrmHeader + "\r\n"
            + "Kindred,\"Octavia E. Butler, Damian Duffy\",https://books.example/book/31,OL3337363M,inv-77,lt-12,gr-60931,"
            + "bnf-1,viaf-2,Q1754587,B00A1B2C3D,AU00000001,isfdb-9,0807083054,9780807083055,ocn-4,"
            + "2023-01-02,2023-02-03,,4.5,On time,\"violence, slavery\",\"<p>Hard, \"\"necessary\"\" reading.</p>\","
            + "2023-02-04,read,Read,2023-01-01\r\n"
        let run = StageRun(csv)
        #expect(run.error == nil)
        let record = try #require(run.records.first)
        #expect(record.format == .bookwyrm && record.title == "Kindred")
        #expect(record.author == "Octavia E. Butler" && record.additionalAuthors == ["Damian Duffy"])
        #expect(record.isbn13 == "9780807083055" && record.isbn10 == "0807083054" && record.asin == "B00A1B2C3D")
        #expect(
            record.identifiers == [
                "bookwyrm": "https://books.example/book/31", "openlibrary-edition": "OL3337363M", "inventaire": "inv-77",
                "librarything": "lt-12", "goodreads": "gr-60931", "bnf": "bnf-1", "viaf": "viaf-2",
                "wikidata": "Q1754587", "audible": "AU00000001", "isfdb": "isfdb-9", "oclc": "ocn-4",
            ])
        #expect(record.reads == [ReadSpan(start: "2023-01-02", end: "2023-02-03")])
        #expect(record.rating == 4.5 && record.shelf == "read" && record.dateAdded == "2023-01-01")
        #expect(record.review == "<p>Hard, \"necessary\" reading.</p>" && record.spoiler == true)
        #expect(record.reviewName == "On time" && record.reviewContentWarning == "violence, slavery")
        let reported = try #require(run.report?.notCarried).map { String($0.prefix { $0 != ":" }) }
        #expect(reported == ["stopped_date", "review_published"])
    }

    /// BookWyrm's shelf identifiers become the four reading states; a custom shelf is a shelf,
    /// its reading state taken from the dates.
    @Test(
        .bug(id: 40),
        arguments: [
            ("to-read,To Read", "", "", "", "to-read", nil),
            ("reading,Currently Reading", "2024-01-01", "", "", "currently-reading", nil),
            ("stopped-reading,Stopped Reading", "2024-01-01", "", "2024-02-01", "did-not-finish", nil),
            ("cooking-9,Cooking", "2022-08-10", "2022-10-10", "", "read", ["Cooking"]),
            ("cooking-9,", "", "", "2022-10-10", "did-not-finish", ["cooking-9"]), (",", "", "", "", nil, nil),
        ] as [(String, String, String, String, String?, [String]?)])
    func shelvesAndStates(
        _ shelf: String, _ start: String, _ finish: String, _ stopped: String, _ state: String?, _ shelves: [String]?
    )
        throws
    {
        let cells = ["T", "A"] + Array(repeating: "", count: 14) + [start, finish, stopped] + Array(repeating: "", count: 5)
        let row = cells.joined(separator: ",") + "," + shelf + ","
        let run = StageRun(bookwyrmHeader + "\n" + row + "\n")
        let record = try #require(run.records.first)
        #expect(record.shelf == state && record.shelves == shelves)
    }

    /// The smallest BookWyrm file: no identifier, no review, nothing invented.
    @Test(.bug(id: 40)) func emptyCellsInventNothing() throws {
        let run = StageRun("title,author_text,remote_id\n\"Quoted, title\",,\n")
        let record = try #require(run.records.first)
        #expect(record.format == .bookwyrm && record.title == "Quoted, title" && record.author == nil)
        #expect(record.identifiers == nil && record.spoiler == nil && record.shelf == nil && record.review == nil)
    }
}
