import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLibrary

/// Dedupe copies what it does not read: a record's bytes reach its output unchanged, the mark
/// spliced in (issue 12; measured for issue 25).
@Suite struct DedupePassThroughTests {
    let temp = TemporaryDirectory("dedupe-pass-through")

    @Test(.bug(id: 25)) func aLongReviewWithEveryEscapeKindPassesThroughByteForByte() throws {
        let first = PassThroughLine.bytes(line: 2, title: "Dune", author: "Frank Herbert", isbn13: "9780441172719")
        let again = PassThroughLine.bytes(line: 3, title: "Dune", author: "Frank Herbert", isbn13: "9780441172719")
        let other = PassThroughLine.bytes(line: 4, title: "Emma", author: "Jane Austen", isbn13: nil, repeats: 3)
        let input = try GzipFixture.write(bytes: first + [0x0A] + again + [0x0A] + other + [0x0A], to: temp.file("in.ndjson.gz"))
        let output = temp.file("out.ndjson.gz")

        let report = try DedupeStage.run(input: input, output: output, workspace: Workspace(root: temp.file("ws")))

        #expect(report.new == 2)
        #expect(report.duplicateInFile == 1)
        let lines = try PassThroughLine.lines(of: output)
        try #require(lines.count == 3)
        for (line, original) in zip(lines, [first, again, other]) {
            #expect(PassThroughLine.isSpliced(line, from: original, member: "dedupe"))
        }
        // The copied bytes still read as the same record, now marked.
        let records = try NDJSONReader<BookRecord>(path: output).readAll()
        let originals = try [first, again, other].map { try JSONDecoder().decode(BookRecord.self, from: Data($0)) }
        #expect(records.map(\.review) == originals.map(\.review))
        #expect(records.map { $0.dedupe?.status } == [.new, .duplicateInFile, .new])
        // The fixture is one a decode and re-encode would change, so the byte checks above can fail.
        #expect(try JSONEncoder.shelfline.encode(originals[0]) != Data(first))
    }
}
