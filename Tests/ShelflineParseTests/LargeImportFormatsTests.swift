import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import Testing

@testable import ShelflineParse

/// A 10 MB file of each format added for issue 40 parses with every row kept.
@Suite struct LargeImportFormatsTests {
    /// Each format's header and a row for index `i` (quoted cells, a line break inside one).
    static let shapes: [(SourceFormat, String, @Sendable (Int) -> String)] = [
        (
            .calibre, calibreHeader,
            { i in
                "\"Author \(i), Second \(i)\",\"\(i), Author\",\"4\",\"Books\",\"2021-01-19T22:41:16+01:00\",\"epub\",\"100\",\"\","
                    + "\"goodreads:\(i),isbn:9780441478125\",\"<p>about\nbook \(i)</p>\",\"a, b\",\"Series \(i % 7)\",\"\(i % 9).0\","
                    + "\"eng\",\"Title \(i)\",\"\",\"Title \(i)\",\"Pub\",\"2001-01-01T00:00:00+00:00\",\"\(i)\",\"uuid-\(i)\""
            }
        ),
        (
            .bookwyrm, bookwyrmHeader,
            { i in
                "Title \(i),Author \(i),https://b.example/book/\(i),OL\(i)M,,,,,,,,,,,,,2023-01-02,2023-02-03,,4,,,\"Review \(i),\nsecond line\",,read,Read,2023-01-01"
            }
        ),
        (
            .openreads, openreadsHeader,
            { i in
                "Title \(i),,Author \(i),\"Desc\n\(i)\",finished,false,false,3.5,100,2001,,OL\(i)M,x|||||y,,,paperback,"
                    + "2023-10-27T00:00:00.000|2023-11-28T00:00:00.000|,2024-03-01T13:01:12.937,2024-03-01T13:01:12.937"
            }
        ),
        (.openlibrary, "Work Id,Edition Id,Bookshelf", { i in "OL\(i)W,OL\(i)M,Already Read" }),
        (
            .generic, "id,title,author,ISBN13,rating,shelf,review,added,finished",
            { i in "\(i),Title \(i),Author \(i),,3,read,\"ok, \(i)\",2021-11-10,2021-11-11" }
        ),
    ]

    @Test(.bug(id: 40), arguments: 0..<5)
    func tenMegabytesKeepEveryRow(_ shape: Int) throws {
        let (format, header, row) = Self.shapes[shape]
        var text = header + "\r\n"
        var rows = 0
        while text.utf8.count < 10_000_000 {
            text += row(rows) + "\r\n"
            rows += 1
        }
        let run = StageRun(text)
        #expect(run.error == nil, "\(String(describing: run.error))")
        #expect(run.report?.format == format && run.report?.rowsRead == rows)
        #expect(run.report?.rowsWritten == rows && run.records.count == rows)
    }
}
