import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineParse

let storygraphHeader = HeaderlessExport.storygraph.joined(separator: ",")

/// A StoryGraph data row with `title`, 23 fields.
func storygraphRow(_ title: String, isbn: String = "9780802148049") -> String {
    "\(title),Douglas Stuart,,\(isbn),hardcover,to-read,2021/07/17,,,0,,,,,,,,,,,,,No"
}

/// Issue 10 (line ends, row size) and issue 13 (odd rows in small files, header-less exports) at the stage.
@Suite struct ParseIssueTests {
    // MARK: issue 10.3

    /// The example export re-saved as "CSV (Macintosh)" (CR line ends) gives the same records.
    @Test(arguments: ["\r", "\r\n"])
    func issue10_crOnlyExportReadsLikeLF(lineEnd: String) throws {
        let path = ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv"
        let original = try String(contentsOfFile: path, encoding: .utf8)
        let lf = StageRun(original)
        let converted = StageRun(original.replacingOccurrences(of: "\n", with: lineEnd))
        #expect(lf.error == nil && converted.error == nil)
        #expect(converted.report?.rowsRead == lf.report?.rowsRead)
        #expect(converted.report?.header == lf.report?.header)
        #expect(converted.records.count == lf.records.count && !lf.records.isEmpty)
        #expect(converted.records.map(\.title) == lf.records.map(\.title))
        #expect(converted.records.map(\.line) == lf.records.map(\.line))
        #expect(converted.records.map(\.isbn13) == lf.records.map(\.isbn13))
    }

    /// A header whose cells hold an unquoted line break is never "0 rows, exit 0".
    @Test func issue10_headerWithBareCRIsNeverZeroRows() throws {
        let run = StageRun("Title,Authors,ISBN/UID,Read Status\rA,B,,read\rC,D,,to-read\r")
        #expect(run.error == nil)
        #expect(run.report?.rowsRead == 2 && run.records.map(\.title) == ["A", "C"])
        let broken = StageRun("Book Id,Title,Author,My Rating,Exclusive\rShelf\n1,T,A,0,read\n")
        #expect(broken.error is ParseError)
    }

    // MARK: issue 10.2

    /// A row above the 8 MiB limit is one rejected row; the rows after it keep their line numbers.
    @Test func issue10_rowOver8MiBIsOneRejectedRow() throws {
        var lines = [storygraphHeader]
        let huge = "\"" + String(repeating: "long review line\n", count: (9 << 20) / 17) + "\""
        for index in 0..<20 {
            lines.append(storygraphRow("Book \(index)"))
        }
        // Put the huge cell in the Review column (index 18) of row 4.
        var cells = storygraphRow("Huge").split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        cells[18] = huge
        lines[5] = cells.joined(separator: ",")
        let run = StageRun(lines.joined(separator: "\n") + "\n", parameters: ParseParameters(maxRejectedShare: 1))
        #expect(run.error == nil)
        #expect(run.report?.rowsRead == 20 && run.report?.rowsWritten == 19 && run.report?.rowsRejected == 1)
        let reject = try #require(run.rejects.first)
        #expect(reject.reason == "row larger than \(8 << 20) bytes")
        #expect(reject.line == 6)
        #expect(reject.byteLength == lines[5].utf8.count)
        let newlinesInHuge = (9 << 20) / 17
        #expect(run.records.first { $0.title == "Book 5" }?.line == 7 + newlinesInHuge)
        #expect(run.records.last?.line == 21 + newlinesInHuge)
    }

    // MARK: issue 13.3

    /// A 9-row StoryGraph export where one row has an extra, empty trailing field imports all 9.
    @Test func issue13_extraEmptyTrailingFieldIsAccepted() throws {
        var lines = [storygraphHeader] + (1...9).map { storygraphRow("Book \($0)") }
        lines[4] += ","
        lines[6] += ",  ,"
        let run = StageRun(lines.joined(separator: "\n") + "\n")
        #expect(run.error == nil)
        #expect(run.records.count == 9 && run.rejects.isEmpty)
        #expect(run.report?.rowsWithEmptyExtraFields == 2)
        // An extra field with text is still a rejection.
        lines[4] += "surprise"
        let odd = StageRun(lines.joined(separator: "\n") + "\n")
        #expect(odd.rejects.map(\.line) == [5] && odd.report?.rowsWithEmptyExtraFields == 1)
    }

    /// One odd row in a small file: imported and listed, not a failed stage; many rejected rows
    /// ("probably the wrong file") still fail, with the outputs written.
    @Test func issue13_rejectThresholdNeedsAShareAndACount() throws {
        var lines = [storygraphHeader] + (1...9).map { storygraphRow("Book \($0)") }
        lines[3] = "only,three,fields"
        let small = StageRun(lines.joined(separator: "\n") + "\n")
        #expect(small.error == nil)
        #expect(small.records.count == 8 && small.rejects.map(\.line) == [4])

        let strict = StageRun(lines.joined(separator: "\n") + "\n", parameters: ParseParameters(minRejectedRows: 1))
        #expect((strict.error as? ParseError)?.exitStatus == .dataError)
        #expect(strict.records.count == 8)

        let wrongFile = [storygraphHeader] + (1...30).map { $0 % 3 == 0 ? storygraphRow("Book \($0)") : "x,y" }
        let wrong = StageRun(wrongFile.joined(separator: "\n") + "\n")
        let error = try #require(wrong.error as? ParseError)
        #expect("\(error)".contains("20 of 30 rows rejected"))
        #expect(wrong.records.count == 10 && wrong.rejects.count == 20)
    }

    @Test func issue13_minRejectedRowsParameter() throws {
        let decoded = try JSONDecoder().decode(ParseParameters.self, from: Data(#"{"minRejectedRows":3,"noHeader":true}"#.utf8))
        #expect(decoded.minRejectedRows == 3 && decoded.noHeader)
        #expect(try JSONDecoder().decode(ParseParameters.self, from: Data("{}".utf8)).minRejectedRows == 10)
        // A negative count: `ParseParameters.ranges` (ParseStageContractTests).
        #expect(ParseParameters(minRejectedRows: 3).tooManyRejected(3, of: 10))
        #expect(!ParseParameters(minRejectedRows: 3).tooManyRejected(2, of: 4))
        #expect(!ParseParameters(minRejectedRows: 0).tooManyRejected(1, of: 10))
    }

    // MARK: issue 13.4

    /// Every known export read without its header row gives the records it gives with it (lines
    /// and byte offsets shift by the header).
    @Test(arguments: [
        ("examples/goodreads_library_export.csv", FormatChoice.goodreads),
        ("corpus:gr_24col_2025_bsanser.csv", .goodreads), ("corpus:gr_31col_html-reviews_genekaufman.csv", .goodreads),
        ("corpus:sg_crlf_quarter-stars_bsanser.csv", .storygraph), ("corpus:small/storygraph.csv", .storygraph),
    ])
    func issue13_noHeaderReadsKnownColumnOrders(_ name: String, _ format: FormatChoice) throws {
        let path: String
        if name.hasPrefix("corpus:") {
            guard let directory = Corpus.directory else {
                #expect(ProcessInfo.processInfo.environment["CI"] != "true", "corpus missing under CI")
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
        #expect(headerless.records.map { normalised($0, lineShift: 0) } == withHeader.records.map { normalised($0, lineShift: 1) })
        #expect(headerless.report?.format.rawValue == format.rawValue)
    }

    /// A header-less file is refused with the exact command that reads it.
    @Test func issue13_headerlessExportSuggestsCommand() throws {
        let path = ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let body = String(text[text.index(after: try #require(text.firstIndex(of: "\n")))...])
        let run = StageRun(body)
        let error = try #require(run.error as? ParseError)
        #expect(error.exitStatus == .dataError)
        let message = "\(error)"
        #expect(message.contains("shelfline-parse --no-header --format goodreads \(run.directory.file("export.csv"))"), "\(message)")
        #expect(message.contains(#""noHeader": true"#))

        let storygraph = StageRun((1...3).map { storygraphRow("Book \($0)") }.joined(separator: "\n") + "\n")
        #expect("\(storygraph.error.map { "\($0)" } ?? "")".contains("--no-header --format storygraph"))
        // A first row that is no known export's data row gets the usual error, without a suggestion.
        let other = StageRun("Gideon the Ninth,Tamsyn Muir,2019\n")
        #expect(!"\(other.error.map { "\($0)" } ?? "")".contains("--no-header"))
    }

    @Test func issue13_noHeaderNeedsAKnownFormatAndWidth() throws {
        let auto = StageRun(storygraphRow("A") + "\n", noHeader: true)
        #expect(auto.error is UsageError)
        let narrow = StageRun("1,Title,Author\n", format: .goodreads, noHeader: true)
        let error = try #require(narrow.error as? ParseError)
        #expect("\(error)".contains("first row has 3 fields") && "\(error)".contains("24 or 31"))
    }
}
