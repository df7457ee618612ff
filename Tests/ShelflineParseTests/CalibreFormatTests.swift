import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import Testing

@testable import ShelflineParse

/// A Calibre CSV catalog as Calibre writes it (every cell quoted, a BOM), rows written here.
let calibreHeader =
    "authors,author_sort,rating,library_name,timestamp,formats,size,isbn,identifiers,comments,tags,series,series_index,languages,title,cover,title_sort,publisher,pubdate,id,uuid"

@Suite struct CalibreFormatTests {
    /// Every column of the catalog: the ones read land in their fields, the others are named once in
    /// the report.
    @Test(.bug(id: 40)) func everyCatalogColumnIsReadOrReported() throws {
        let csv =
            "\u{FEFF}" + calibreHeader + "\r\n"
            + "\"Ursula K. Le Guin, Brian Attebery\",\"Le Guin, Ursula K. & Attebery, Brian\",\"4.5\",\"Books\","
            + "\"2022-03-04T20:15:00+01:00\",\"epub, pdf\",\"204800\",\"\","
            + "\"goodreads:13651,isbn:9780441478125,amazon:B000FC1MZ0,openlibrary:OL59863W\","
            + "\"<p>A planet where \"\"anyone\"\" can be a mother.</p>\",\"sf, classics\",\"Hainish Cycle\",\"4.0\",\"eng\","
            + "\"The Left Hand of Darkness\",\"/books/cover.jpg\",\"Left Hand of Darkness, The\",\"Ace\","
            + "\"1969-03-01T00:00:00+00:00\",\"17\",\"0f1e2d3c-aaaa-bbbb-cccc-123456789abc\"\r\n"
        let run = StageRun(csv)
        #expect(run.error == nil)
        let record = try #require(run.records.first)
        #expect(record.format == .calibre && record.rowId == "17" && record.line == 2)
        #expect(record.title == "The Left Hand of Darkness")
        #expect(record.author == "Ursula K. Le Guin" && record.additionalAuthors == ["Brian Attebery"])
        #expect(record.rating == 4.5 && record.dateAdded == "2022-03-04" && record.year == 1969)
        #expect(record.isbn13 == "9780441478125" && record.publisher == "Ace")
        #expect(record.series == "Hainish Cycle" && record.seriesPosition == "4")
        #expect(record.shelf == "to-read" && record.shelves == ["sf", "classics"])
        #expect(
            record.identifiers == [
                "goodreads": "13651", "amazon": "B000FC1MZ0", "openlibrary-work": "OL59863W",
                "calibre": "0f1e2d3c-aaaa-bbbb-cccc-123456789abc",
            ])
        // The description is not the reader's review.
        #expect(record.review == nil && record.notes == nil)
        let notCarried = try #require(run.report?.notCarried)
        #expect(
            notCarried.map { $0.prefix { $0 != ":" } } == [
                "author_sort", "library_name", "formats", "size", "comments", "languages", "cover", "title_sort",
            ])
        #expect(notCarried.contains { $0.hasPrefix("comments: the book's description") })
    }

    /// Calibre joins authors with ` & ` (newer catalogs) or `, ` (older ones): with `&` the cell is
    /// split there alone, so an inverted name keeps its comma.
    @Test(
        .bug(id: 40),
        arguments: [
            ("Terry Pratchett & Neil Gaiman", "Terry Pratchett", ["Neil Gaiman"]),
            ("Le Guin, Ursula K. & Attebery, Brian", "Le Guin, Ursula K.", ["Attebery, Brian"]),
            ("Ursula K. Le Guin, Brian Attebery", "Ursula K. Le Guin", ["Brian Attebery"]),
            ("Frank Herbert", "Frank Herbert", nil),
        ] as [(String, String, [String]?)])
    func authorsAreSplitAsCalibreJoinsThem(_ cell: String, _ author: String, _ others: [String]?) throws {
        let run = StageRun("title,authors,uuid\nT,\"\(cell)\",u-1\n")
        let record = try #require(run.records.first)
        #expect(record.author == author && record.additionalAuthors == others)
    }

    /// Calibre lets the user pick the catalog's columns: a subset in another order is still Calibre.
    @Test(.bug(id: 40)) func aSubsetInAnotherOrderIsRecognised() throws {
        let run = StageRun("title,uuid,authors\nDune,u-1,Frank Herbert\n")
        let record = try #require(run.records.first)
        #expect(record.format == .calibre && record.author == "Frank Herbert" && record.identifiers == ["calibre": "u-1"])
        #expect(run.report?.notCarried == nil)
    }

    /// Ratings: stars as the catalog writes them, Calibre's own 0–10 scale above 5, 0 or junk unrated.
    @Test(
        .bug(id: 40),
        arguments: [("5", 5.0), ("2.5", 2.5), ("8", 4.0), ("10", 5.0), ("0", nil), ("12", nil), ("x", nil), ("", nil)])
    func ratingScale(_ cell: String, _ stars: Double?) throws {
        let run = StageRun("title,authors,rating,author_sort\nT,A,\"\(cell)\",A\n")
        #expect(try #require(run.records.first).rating == stars)
    }

    /// Empty and odd cells: nothing invented (no series position without a series, no ISBN from an
    /// identifier without a value, Calibre's "undefined" publication year 101 left out).
    @Test(.bug(id: 40)) func emptyAndOddCellsInventNothing() throws {
        let csv =
            calibreHeader + "\n"
            + "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"isbn:,goodreads,:7, GOODREADS : 42 \",\"\",\"\",\"\",\"3.0\",\"\",\"Untitled Notes\",\"\",\"\",\"\",\"0101-01-01T00:00:00+00:00\",\"\",\"\"\n"
        let run = StageRun(csv)
        let record = try #require(run.records.first)
        #expect(record.author == nil && record.rating == nil && record.dateAdded == nil && record.year == nil)
        #expect(record.series == nil && record.seriesPosition == nil && record.isbn13 == nil)
        #expect(record.identifiers == ["goodreads": "42"])
        #expect(record.shelf == "to-read" && record.shelves == nil)
    }

    /// The ISBN of `identifiers` is the book's ISBN when the `isbn` column has none.
    @Test(.bug(id: 40)) func identifiersISBNFillsAnEmptyISBNColumn() throws {
        let run = StageRun("title,authors,isbn,identifiers\nA,B,,\"isbn:0441478123\"\nC,D,9780441478125,\"isbn:9780000000002\"\n")
        #expect(run.records.map(\.isbn13) == ["9780441478125", "9780441478125"])
        #expect(run.records.allSatisfy { $0.identifiers == nil })
    }

    /// `--format calibre` on a file without Calibre's columns names what is missing.
    @Test(.bug(id: 40)) func forcedCalibreNamesTheMissingColumns() {
        let run = StageRun("title,author\nA,B\n", format: .format(.calibre))
        #expect("\(run.error.map { "\($0)" } ?? "")".contains("not a calibre export: header lacks 'authors'"))
    }
}
