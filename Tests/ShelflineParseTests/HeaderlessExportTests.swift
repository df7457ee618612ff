import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineParse

let storygraphHeader = StoryGraphFormat.columns.joined(separator: ",")

/// A StoryGraph data row with `title`, 23 fields.
func storygraphRow(_ title: String, isbn: String = "9780802148049") -> String {
    "\(title),Douglas Stuart,,\(isbn),hardcover,to-read,2021/07/17,,,0,,,,,,,,,,,,,No"
}

/// Exports without their header row: read with `noHeader` and a known format, suggested when refused.
@Suite struct HeaderlessExportTests {
    /// Every known export read without its header row gives the records it gives with it (lines
    /// and byte offsets shift by the header).
    @Test(
        .bug(id: 13),
        arguments: [
            ("examples/goodreads_library_export.csv", FormatChoice.format(.goodreads)),
            ("corpus:gr_24col_2025_bsanser.csv", .format(.goodreads)),
            ("corpus:gr_31col_html-reviews_genekaufman.csv", .format(.goodreads)),
            ("corpus:sg_crlf_quarter-stars_bsanser.csv", .format(.storygraph)),
            ("corpus:small/storygraph.csv", .format(.storygraph)),
        ])
    func noHeaderReadsKnownColumnOrders(_ name: String, _ format: FormatChoice) throws {
        let path: String
        if name.hasPrefix("corpus:") {
            guard let directory = Corpus.directory else {
                #expect(!ContinuousIntegration.isRunning, "corpus missing under CI")
                return
            }
            path = directory + "/" + name.dropFirst("corpus:".count)
        } else {
            path = ExecutableRunner.repositoryRoot + "/" + name
        }
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let headerEnd = try #require(bytes.firstIndex(of: UInt8(ascii: "\n")))
        let withHeader = StageRun(bytes)
        let headerless = StageRun(Array(bytes[(headerEnd + 1)...]), format: format, noHeader: true)
        #expect(withHeader.error == nil && headerless.error == nil, "\(String(describing: headerless.error))")
        #expect(headerless.report?.rowsRead == withHeader.report?.rowsRead)
        #expect(headerless.records.count == withHeader.records.count && !withHeader.records.isEmpty)
        func normalised(_ record: BookRecord, lineShift: Int) -> BookRecord {
            var record = record
            record.line -= lineShift
            record.byteOffset = 0
            return record
        }
        #expect(
            headerless.records.map { normalised($0, lineShift: 0) } == withHeader.records.map { normalised($0, lineShift: 1) })
        #expect(headerless.report?.format.rawValue == format.rawValue)
    }

    /// A header-less file is refused with the exact command that reads it.
    @Test(.bug(id: 13)) func headerlessExportSuggestsCommand() throws {
        let path = ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let body = String(text[text.index(after: try #require(text.firstIndex(of: "\n")))...])
        let run = StageRun(body)
        let error = try #require(run.error as? ParseError)
        #expect(error.exitStatus == .dataError)
        let message = "\(error)"
        #expect(
            message.contains("shelfline-parse --no-header --format goodreads \(run.directory.file("export.csv"))"), "\(message)")
        #expect(message.contains(#""noHeader": true"#))

        let storygraph = StageRun((1...3).map { storygraphRow("Book \($0)") }.joined(separator: "\n") + "\n")
        #expect("\(storygraph.error.map { "\($0)" } ?? "")".contains("--no-header --format storygraph"))
        // A first row that is no known export's data row gets the usual error, without a suggestion.
        let other = StageRun("Gideon the Ninth,Tamsyn Muir,2019\n")
        #expect(!"\(other.error.map { "\($0)" } ?? "")".contains("--no-header"))
    }

    @Test(.bug(id: 13)) func noHeaderNeedsAKnownFormatAndWidth() throws {
        let auto = StageRun(storygraphRow("A") + "\n", noHeader: true)
        #expect(auto.error is UsageError)
        let narrow = StageRun("1,Title,Author\n", format: .format(.goodreads), noHeader: true)
        let error = try #require(narrow.error as? ParseError)
        #expect("\(error)".contains("first row has 3 fields") && "\(error)".contains("24 or 31"))
    }
}
