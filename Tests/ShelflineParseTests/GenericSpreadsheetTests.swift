import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import Testing

@testable import ShelflineParse

/// Any spreadsheet: header names guessed in any order and case, or mapped with `--columns` /
/// the `columns` parameter; a header nobody recognises gets the line that reads it.
@Suite struct GenericSpreadsheetTests {
    /// The issue's plain spreadsheet is read without help, whatever the columns' order and case.
    @Test(
        .bug(id: 40),
        arguments: [
            (
                "id,title,author,ISBN13,rating,shelf,review,added,finished",
                "38,Gideon the Ninth,Tamsyn Muir,\"9781250313195\",4,read,\"Bones, \"\"lots\"\"\",2021-11-10,11/11/2021"
            ),
            (
                "FINISHED,Added,Review,Shelf,Rating,isbn13,AUTHOR,Title,ID",
                "11/11/2021,2021-11-10,\"Bones, \"\"lots\"\"\",read,4,\"9781250313195\",Tamsyn Muir,Gideon the Ninth,38"
            ),
            (
                "Book Id,Book Title,Authors,ISBN-13,My Rating,Status,My Review,Date Added,Date Read",
                "38,Gideon the Ninth,Tamsyn Muir,\"9781250313195\",4,read,\"Bones, \"\"lots\"\"\",2021-11-10,11/11/2021"
            ),
        ])
    func guessedHeaderIsReadInAnyOrderAndCase(_ header: String, _ row: String) throws {
        let run = StageRun(header + "\r\n" + row + "\r\n")
        #expect(run.error == nil, "\(String(describing: run.error))")
        let record = try #require(run.records.first)
        #expect(record.format == .generic && record.rowId == "38" && record.title == "Gideon the Ninth")
        #expect(record.author == "Tamsyn Muir" && record.isbn13 == "9781250313195" && record.rating == 4)
        #expect(record.shelf == "read" && record.review == "Bones, \"lots\"")
        #expect(record.dateAdded == "2021-11-10" && record.reads == [ReadSpan(start: nil, end: "2021-11-11")])
    }

    /// A spreadsheet's columns nothing reads are named in the report, once each.
    @Test(.bug(id: 40)) func unreadSpreadsheetColumnsAreReported() throws {
        let run = StageRun("Title,Mood,Author,,Rating\nDune,dark,Frank Herbert,,5\n")
        #expect(try #require(run.records.first).rating == 5)
        #expect(run.report?.notCarried == ["Mood: not read (no field is guessed from this name; map it with --columns)"])
        let mapped = StageRun("Name,Mood\nDune,dark\n", columns: try GenericMapping(argument: "title=Name"))
        #expect(mapped.report?.notCarried?.map { String($0.prefix { $0 != ":" }) } == ["Mood"])
    }

    /// `--columns` maps any header; the same mapping as the `columns` parameter reads the same.
    @Test(.bug(id: 40)) func columnsMapAnyHeader() throws {
        let csv = "\u{FEFF}Name,Writer,ISBN,Stars,Status,Added,Finished\nDune,Frank Herbert,0441172717,5,Finished,2024/01/15,\n"
        let mapping = try GenericMapping(
            argument: "title=Name,author=Writer,isbn=ISBN,rating=Stars,shelf=Status,added=Added,finished=Finished")
        let run = StageRun(csv, columns: mapping)
        #expect(run.error == nil, "\(String(describing: run.error))")
        let record = try #require(run.records.first)
        #expect(record.format == .generic && record.title == "Dune" && record.author == "Frank Herbert")
        #expect(record.isbn13 == "9780441172719" && record.rating == 5 && record.shelf == "read")
        #expect(record.dateAdded == "2024-01-15" && record.reads == nil)
        let json =
            #"{"columns":{"title":"Name","author":"Writer","isbn":"ISBN","rating":"Stars","shelf":"Status","added":"Added","finished":"Finished"}}"#
        let parameters = try JSONDecoder().decode(ParseParameters.self, from: Data(json.utf8))
        #expect(parameters.generic == mapping)
        #expect(StageRun(csv, parameters: parameters).records == run.records)
    }

    @Test(.bug(id: 40)) func badColumnsAreRefusedNamingTheFieldNames() {
        #expect(throws: UsageError.self) { try GenericMapping(argument: "titel=Name") }
        #expect(throws: UsageError.self) { try GenericMapping(argument: "title") }
        let both = #"{"columns":{"title":"Name"},"generic":{"columns":{"title":"Name"}}}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ParseParameters.self, from: Data(both.utf8)) }
        let unknown = #"{"columns":{"titel":"Name"}}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ParseParameters.self, from: Data(unknown.utf8)) }
    }

    /// A header no format recognises names the closest formats and the `--columns` line to write.
    @Test(.bug(id: 40)) func unrecognisedHeaderSuggestsTheColumnsLine() throws {
        let run = StageRun("Name,Writer,Stars,Status,Finished\nDune,Frank Herbert,5,read,2024-01-01\n")
        let message = "\(try #require(run.error as? ParseError))"
        #expect(message.contains("unrecognised header"))
        #expect(message.contains("--columns title=Name,author=Writer,rating=Stars,shelf=Status,finished=Finished"))
        let near = "\(try #require(StageRun("Book Id,Name,Primary Author\n1,Dune,Herbert\n").error))"
        #expect(near.contains("closest: librarything (shares book id"))
        #expect(near.contains("--columns title=Name,author=Primary Author"))
    }

    /// A header cell holding a line break (a quoted cell) stays on the message's one line, in the
    /// `--columns` line too (the fuzz target's invariant).
    @Test(.bug(id: 40)) func aHeaderCellWithALineBreakKeepsTheMessageOnOneLine() throws {
        let run = StageRun("\"Name\nfirst\",\"Writer\r\",Stars\nDune,Frank Herbert,5\n")
        let message = "\(try #require(run.error as? ParseError))"
        #expect(message.contains("unrecognised header"))
        #expect(!message.contains("\n") && !message.contains("\r"), "\(message)")
        #expect(message.contains("--columns title=Name\\u{a}first"), "\(message)")
    }
}
