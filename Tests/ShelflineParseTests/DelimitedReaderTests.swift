import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineParse

/// Reads every row of `text` with a small block size, so rows straddle refills.
func readRows(
    _ bytes: [UInt8], delimiter: UInt8 = UInt8(ascii: ","), blockSize: Int = 7,
    maxRowBytes: Int = 8 << 20
) throws -> [(fields: [String], row: DelimitedRow)] {
    let reader = DelimitedReader(source: .bytes(bytes), delimiter: delimiter, blockSize: blockSize, maxRowBytes: maxRowBytes)
    var rows: [(fields: [String], row: DelimitedRow)] = []
    var row = DelimitedRow()
    while try reader.next(into: &row) {
        let fields = (0..<row.count).map { TextRepair.decode(Array(row.bytes($0))).text }
        rows.append((fields, row))
    }
    return rows
}

struct DelimitedReaderCase: CustomTestStringConvertible, Sendable {
    var name: String
    var input: String
    var fields: [[String]]
    var lines: [Int]
    var testDescription: String { name }
}

@Suite struct DelimitedReaderTests {
    static let cases: [DelimitedReaderCase] = [
        .init(name: "plain LF", input: "a,b,c\n1,2,3\n", fields: [["a", "b", "c"], ["1", "2", "3"]], lines: [1, 2]),
        .init(name: "CRLF", input: "a,b\r\n1,2\r\n", fields: [["a", "b"], ["1", "2"]], lines: [1, 2]),
        .init(name: "no final newline", input: "a,b\n1,2", fields: [["a", "b"], ["1", "2"]], lines: [1, 2]),
        .init(name: "no final newline CR", input: "a,b\r\n1,2\r", fields: [["a", "b"], ["1", "2"]], lines: [1, 2]),
        .init(name: "quoted comma", input: "a,b\n\"x, y\",z\n", fields: [["a", "b"], ["x, y", "z"]], lines: [1, 2]),
        .init(name: "doubled quotes", input: "a\n\"say \"\"hi\"\"\"\n", fields: [["a"], ["say \"hi\""]], lines: [1, 2]),
        .init(
            name: "embedded newline", input: "a,b\n\"one\ntwo\",3\nx,y\n",
            fields: [["a", "b"], ["one\ntwo", "3"], ["x", "y"]], lines: [1, 2, 4]),
        .init(
            name: "embedded CRLF kept in field", input: "a,b\r\n\"one\r\ntwo\",3\r\nx,y\r\n",
            fields: [["a", "b"], ["one\r\ntwo", "3"], ["x", "y"]], lines: [1, 2, 4]),
        .init(name: "empty fields", input: "a,b,c\n,,\n", fields: [["a", "b", "c"], ["", "", ""]], lines: [1, 2]),
        .init(name: "empty quoted field", input: "a,b\n\"\",x\n", fields: [["a", "b"], ["", "x"]], lines: [1, 2]),
        .init(name: "blank lines skipped", input: "a\n\n1\r\n\r\n2\n", fields: [["a"], ["1"], ["2"]], lines: [1, 3, 5]),
        .init(
            name: "quote inside unquoted field is literal", input: "a,b\n5\" disk,x\n",
            fields: [["a", "b"], ["5\" disk", "x"]], lines: [1, 2]),
        .init(name: "text after closing quote kept", input: "a\n\"ab\"cd\n", fields: [["a"], ["abcd"]], lines: [1, 2]),
        .init(
            name: "Goodreads ISBN wrapper", input: "ISBN\n\"=\"\"0062445316\"\"\"\n", fields: [["ISBN"], ["=\"0062445316\""]],
            lines: [1, 2]),
        .init(name: "BOM skipped", input: "\u{FEFF}a,b\n1,2\n", fields: [["a", "b"], ["1", "2"]], lines: [1, 2]),
        .init(name: "quoted field then CRLF", input: "a,b\r\n1,\"2\"\r\n", fields: [["a", "b"], ["1", "2"]], lines: [1, 2]),
    ]

    @Test(.bug(id: 2), arguments: cases)
    func readsRFC4180(_ example: DelimitedReaderCase) throws {
        try Self.expectReads(example)
    }

    /// `example` reads as its fields and lines at block sizes that split rows everywhere.
    static func expectReads(_ example: DelimitedReaderCase) throws {
        for blockSize in [3, 7, 64, 1 << 16] {
            let rows = try readRows(Array(example.input.utf8), blockSize: blockSize)
            #expect(rows.map(\.fields) == example.fields, "block size \(blockSize)")
            #expect(rows.map(\.row.line) == example.lines, "block size \(blockSize)")
            #expect(rows.allSatisfy { $0.row.malformation == nil })
        }
    }

    @Test(.bug(id: 2)) func byteOffsetsPointAtRawRows() throws {
        let text = "\u{FEFF}a,b\r\n\"x\ny\",2\r\nlast,row"
        let bytes = Array(text.utf8)
        let rows = try readRows(bytes)
        #expect(rows.count == 3)
        let raws = rows.map {
            String(decoding: bytes[$0.row.byteOffset..<($0.row.byteOffset + $0.row.byteLength)], as: UTF8.self)
        }
        #expect(raws == ["a,b", "\"x\ny\",2", "last,row"])
        #expect(rows[0].row.byteOffset == 3)
    }

    @Test(.bug(id: 2)) func readsTabDelimitedRows() throws {
        let rows = try readRows(Array("a\tb\n1, 2\t\"q\"\n".utf8), delimiter: 0x09)
        #expect(rows.map(\.fields) == [["a", "b"], ["1, 2", "q"]])
    }

    @Test(.bug(id: 2)) func unterminatedQuoteCostsOneLine() throws {
        let rows = try readRows(Array("a,b\n\"broken,1\nx,y\nz,w\n".utf8))
        #expect(rows.map(\.row.line) == [1, 2, 3, 4])
        #expect(rows[1].row.malformation != nil)
        #expect(rows[1].fields == ["\"broken,1"])
        #expect(rows[2].fields == ["x", "y"])
        #expect(rows[3].fields == ["z", "w"])
    }

    @Test(.bug(id: 2)) func overlongQuotedRowIsMalformedNotUnbounded() throws {
        let body = String(repeating: "x", count: 5000)
        let rows = try readRows(Array("a\n\"\(body)\n\(body)\nok\n".utf8), blockSize: 512, maxRowBytes: 2048)
        #expect(rows.first?.fields == ["a"])
        #expect(rows[1].row.malformation != nil)
        #expect(rows.last?.fields == ["ok"])
    }

    @Test(.bug(id: 2)) func flagsNonASCIIRows() throws {
        let rows = try readRows(Array("a\nplain\ncafé\n".utf8))
        #expect(rows.map { $0.row.hasNonASCII } == [false, false, true])
    }
}

struct RepairCase: CustomTestStringConvertible, Sendable {
    var name: String
    var bytes: [UInt8]
    var text: String
    var repaired: Bool
    var testDescription: String { name }
}

@Suite struct TextRepairTests {
    static let cases: [RepairCase] = [
        .init(name: "ASCII", bytes: Array("plain".utf8), text: "plain", repaired: false),
        .init(name: "valid UTF-8", bytes: Array("Mélanie 東京 😀".utf8), text: "Mélanie 東京 😀", repaired: false),
        .init(name: "Latin-1 é", bytes: [0x43, 0x61, 0x66, 0xE9], text: "Café", repaired: true),
        .init(
            name: "CP1252 quotes and euro", bytes: [0x93, 0x68, 0x69, 0x94, 0x20, 0x80], text: "\u{201C}hi\u{201D} €",
            repaired: true),
        .init(
            name: "mixed in one field", bytes: Array("Cortázar ".utf8) + [0x4D, 0xE2, 0x69], text: "Cortázar Mâi", repaired: true),
        .init(name: "truncated sequence", bytes: [0x61, 0xC3], text: "aÃ", repaired: true),
        .init(name: "overlong encoding", bytes: [0xC0, 0xAF], text: "À¯", repaired: true),
        .init(name: "surrogate encoded", bytes: [0xED, 0xA0, 0x80], text: "í\u{A0}€", repaired: true),
        .init(name: "undefined CP1252 byte", bytes: [0x81], text: "\u{81}", repaired: true),
    ]

    @Test(.bug(id: 2), arguments: cases)
    func repairsPerByteNeverDrops(_ example: RepairCase) {
        let (text, repaired) = TextRepair.decode(example.bytes)
        #expect(text == example.text)
        #expect(repaired == example.repaired)
        #expect(!text.contains("\u{FFFD}"))
    }
}

/// The 8-bytes-at-a-time scans (quoted text, UTF-8 validation, JSON escaping) must find a special
/// byte at any position in or across a word, and in the short tail after the last whole word.
@Suite struct WordScanTests {
    static let offsets = Array(0..<20)

    @Test(.bug(id: 2), arguments: offsets)
    func quotedFieldSpecialBytesAtEveryOffset(offset: Int) throws {
        let before = String(repeating: "a", count: offset), after = String(repeating: "b", count: 19 - offset)
        let input = "h1,h2\n\"\(before)\"\"\(after)\",x\n\"\(before)\n\(after)é\",y\nlast,z\n"
        // A block size larger than the input, so the whole-word path runs over the entire row.
        let rows = try readRows(Array(input.utf8), blockSize: 1 << 12)
        #expect(
            rows.map { $0.fields } == [
                ["h1", "h2"], ["\(before)\"\(after)", "x"], ["\(before)\n\(after)é", "y"], ["last", "z"],
            ])
        #expect(rows.map { $0.row.line } == [1, 2, 3, 5])
        #expect(rows.map { $0.row.hasNonASCII } == [false, false, true, false])
    }

    @Test(.bug(id: 2), arguments: offsets)
    func invalidUTF8FoundAtEveryOffset(offset: Int) {
        let before = Array(repeating: UInt8(ascii: "a"), count: offset),
            after = Array(repeating: UInt8(ascii: "b"), count: 19 - offset)
        #expect(TextRepair.decode(before + [0xE9] + after).repaired)
        #expect(TextRepair.decode(before + [0xFF] + after).repaired)
        #expect(!TextRepair.decode(before + Array("é東😀".utf8) + after).repaired)
    }

    @Test(.bug(id: 2), arguments: offsets)
    func jsonEscapesAtEveryOffset(offset: Int) throws {
        var encoder = BookRecordJSON()
        for special in ["\"", "\\", "\n", "\u{1}", "\u{1F}", "é", "/"] {
            let record = BookRecord(
                format: .goodreads, line: 2,
                title: String(repeating: "a", count: offset) + special
                    + String(repeating: "b", count: 19 - offset))
            try encoder.encode(record)
            let reference = try JSONEncoder.shelfline.encode(record)
            #expect(String(decoding: encoder.bytes, as: UTF8.self) == String(decoding: reference, as: UTF8.self))
        }
    }
}

/// CR-only and mixed line ends, and rows larger than the size limit.
@Suite struct DelimitedReaderLineEndAndRowLimitTests {
    static let lineEndCases: [DelimitedReaderCase] = [
        .init(name: "CR only", input: "a,b\r1,2\r3,4\r", fields: [["a", "b"], ["1", "2"], ["3", "4"]], lines: [1, 2, 3]),
        .init(name: "CR only, no final line end", input: "a,b\r1,2", fields: [["a", "b"], ["1", "2"]], lines: [1, 2]),
        .init(
            name: "mixed LF, CRLF, CR", input: "a,b\r\n1,2\r3,4\n5,6\r\n7,8",
            fields: [["a", "b"], ["1", "2"], ["3", "4"], ["5", "6"], ["7", "8"]], lines: [1, 2, 3, 4, 5]),
        .init(
            name: "CR inside quotes is data and counts a line", input: "a,b\r\"x\ry\",2\r3,4\r",
            fields: [["a", "b"], ["x\ry", "2"], ["3", "4"]], lines: [1, 2, 4]),
        .init(
            name: "CRLF inside quotes counts one line", input: "a,b\n\"x\r\ny\",2\n3,4\n",
            fields: [["a", "b"], ["x\r\ny", "2"], ["3", "4"]], lines: [1, 2, 4]),
        .init(name: "blank CR lines skipped", input: "a\r\r1\r\r\r2\r", fields: [["a"], ["1"], ["2"]], lines: [1, 3, 6]),
        .init(
            name: "closing quote then CR", input: "a,b\r1,\"2\"\r3,4", fields: [["a", "b"], ["1", "2"], ["3", "4"]],
            lines: [1, 2, 3]),
        .init(
            name: "header with a line break outside quotes", input: "Owned Copies\r1\r",
            fields: [["Owned Copies"], ["1"]], lines: [1, 2]),
    ]

    @Test(.bug(id: 10), arguments: lineEndCases)
    func readsCROnlyAndMixedLineEnds(_ example: DelimitedReaderCase) throws {
        try DelimitedReaderTests.expectReads(example)
    }

    /// Byte offsets and lengths of CR-only rows point at exactly the row's bytes.
    @Test(.bug(id: 10)) func crOnlyByteOffsetsPointAtRawRows() throws {
        let input = Array("a,b\r\"x\ry\",2\r\n3,4".utf8)
        let rows = try readRows(input, blockSize: 5)
        let raw = rows.map { String(decoding: input[$0.row.byteOffset..<$0.row.byteOffset + $0.row.byteLength], as: UTF8.self) }
        #expect(raw == ["a,b", "\"x\ry\",2", "3,4"])
    }

    /// A row above the limit (here 1,000 bytes, with quoted line breaks) is one malformed row
    /// covering its real extent; the rows after it keep their true line numbers.
    @Test(.bug(id: 10), arguments: ["\n", "\r\n", "\r"])
    func rowLargerThanLimitIsOneRow(lineEnd: String) throws {
        let big = "\"" + Array(repeating: String(repeating: "y", count: 300), count: 8).joined(separator: lineEnd) + "\",z"
        var lines = ["h1,h2"]
        for index in 0..<20 { lines.append(index == 7 ? big : "r\(index),v") }
        let input = Array((lines.joined(separator: lineEnd) + lineEnd).utf8)
        for blockSize in [16, 64, 4096] {
            let rows = try readRows(input, blockSize: blockSize, maxRowBytes: 1000)
            #expect(rows.count == 21, "block size \(blockSize)")
            let malformed = rows.filter { $0.row.malformation != nil }
            #expect(malformed.count == 1)
            #expect(malformed.first?.row.malformation == "row larger than 1000 bytes")
            #expect(malformed.first?.row.line == 9)
            if let row = malformed.first?.row {
                #expect(Array(input[row.byteOffset..<row.byteOffset + row.byteLength]) == Array(big.utf8))
            }
            // Lines 2…8 before it, then 8 physical lines for the big row: the next row is line 17.
            #expect(rows.map(\.row.line) == [1] + Array(2...9) + Array(17...28))
            #expect(rows.last?.fields == ["r19", "v"])
        }
    }

    /// An unquoted row above the limit, and one whose quote never closes: the first is one row;
    /// the second falls back to "its first line is malformed" and reading resumes after that line.
    @Test(.bug(id: 10)) func oversizedUnterminatedQuoteCostsOneLine() throws {
        let long = String(repeating: "q", count: 3000)
        let input = Array("h\n\(long)\nok1\n\"open \(long)\n\(long)\nok2\n".utf8)
        for blockSize in [16, 512] {
            let rows = try readRows(input, blockSize: blockSize, maxRowBytes: 1000)
            #expect(rows.map(\.row.line) == [1, 2, 3, 4, 5, 6], "block size \(blockSize)")
            #expect(
                rows.map(\.row.malformation) == [
                    nil, "row larger than 1000 bytes", nil,
                    "unterminated quoted field (a quote opened on this line is never closed)", "row larger than 1000 bytes", nil,
                ])
            #expect(rows[2].fields == ["ok1"] && rows[5].fields == ["ok2"])
            #expect(rows[3].row.byteLength == 3006)
        }
    }
}

/// The same line ends through the parse stage: a whole export, and a header broken by a bare CR.
extension DelimitedReaderLineEndAndRowLimitTests {
    /// The example export re-saved as "CSV (Macintosh)" (CR line ends) gives the same records.
    @Test(.bug(id: 10), arguments: ["\r", "\r\n"])
    func crOnlyExportReadsLikeLF(lineEnd: String) throws {
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
    @Test(.bug(id: 10)) func headerWithBareCRIsNeverZeroRows() throws {
        let run = StageRun("Title,Authors,ISBN/UID,Read Status\rA,B,,read\rC,D,,to-read\r")
        #expect(run.error == nil)
        #expect(run.report?.rowsRead == 2 && run.records.map(\.title) == ["A", "C"])
        // No longer a Goodreads header, it is read as a spreadsheet (its names say title and author),
        // every row counted: the stray `Shelf` row is rejected, never a silent "0 rows".
        let broken = StageRun("Book Id,Title,Author,My Rating,Exclusive\rShelf\n1,T,A,0,read\n")
        #expect(broken.report?.format == .generic && broken.report?.rowsRead == 2)
        #expect(broken.records.map(\.title) == ["T"] && broken.rejects.map(\.line) == [2])
    }
}
