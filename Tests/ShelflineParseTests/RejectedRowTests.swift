import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineParse

/// Rows the stage rejects or accepts: a row over the size limit, extra empty trailing fields, and
/// the rejected-rows threshold (a share and a count).
extension ParseStageTests {
    /// A row above the 8 MiB limit is one rejected row; the rows after it keep their line numbers.
    @Test(.bug(id: 10)) func rowOver8MiBIsOneRejectedRow() throws {
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

    /// A 9-row StoryGraph export where one row has an extra, empty trailing field imports all 9.
    @Test(.bug(id: 13)) func extraEmptyTrailingFieldIsAccepted() throws {
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
    @Test(.bug(id: 13)) func rejectThresholdNeedsAShareAndACount() throws {
        var lines = [storygraphHeader] + (1...9).map { storygraphRow("Book \($0)") }
        lines[3] = "only,three,fields"
        let small = StageRun(lines.joined(separator: "\n") + "\n")
        #expect(small.error == nil)
        #expect(small.records.count == 8 && small.rejects.map(\.line) == [4])

        let strict = StageRun(lines.joined(separator: "\n") + "\n", parameters: ParseParameters(minRejectedRows: 1))
        #expect((strict.error as? DataError)?.exitStatus == .dataError)
        #expect(strict.records.count == 8)

        let wrongFile = [storygraphHeader] + (1...30).map { $0 % 3 == 0 ? storygraphRow("Book \($0)") : "x,y" }
        let wrong = StageRun(wrongFile.joined(separator: "\n") + "\n")
        let error = try #require(wrong.error as? DataError)
        #expect("\(error)".contains("20 of 30 rows rejected"))
        #expect(wrong.records.count == 10 && wrong.rejects.count == 20)
    }

    @Test(.bug(id: 13)) func minRejectedRowsDecodesAndSetsTheThreshold() throws {
        let decoded = try JSONDecoder().decode(ParseParameters.self, from: Data(#"{"minRejectedRows":3,"noHeader":true}"#.utf8))
        #expect(decoded.minRejectedRows == 3 && decoded.noHeader)
        #expect(try JSONDecoder().decode(ParseParameters.self, from: Data("{}".utf8)).minRejectedRows == 10)
        // A negative count: `ParseParameters.ranges` (ParseStageContractTests).
        #expect(ParseParameters(minRejectedRows: 3).tooManyRejected(3, of: 10))
        #expect(!ParseParameters(minRejectedRows: 3).tooManyRejected(2, of: 4))
        #expect(!ParseParameters(minRejectedRows: 0).tooManyRejected(1, of: 10))
    }
}
