import Foundation
import TestSupport
import Testing

@testable import ShelflineCore

/// The texts file's line format (`RecordTexts`): what parse writes, merge reads back exactly, and
/// nothing else passes for it.
@Suite struct RecordTextsTests {
    static func decode(_ text: String) -> (line: Int, review: String?, notes: String?)? {
        Array(text.utf8).withUnsafeBytes { RecordTexts.decode($0) }
    }

    @Test(.bug(id: 25)) func aTextsLineDecodesToWhatWasWritten() {
        let cases: [(String?, String?)] = [("Great \"book\"\n<br/>\t\u{1}é😀", nil), (nil, "private"), ("", "n"), ("r", "n")]
        for (review, notes) in cases {
            var bytes: [UInt8] = []
            RecordTexts.appendLine(line: 1234, review: review, notes: notes, to: &bytes)
            let decoded = bytes.withUnsafeBytes { RecordTexts.decode($0) }
            #expect(
                decoded?.line == 1234 && decoded?.review == review && decoded?.notes == notes,
                "\(String(decoding: bytes, as: UTF8.self))")
            #expect(
                !bytes.contains(0x09) && !bytes.contains(0x0A),
                "no raw tab or line break: merge's scratch lines are tab-separated")
            #expect(bytes.withUnsafeBytes { RecordTexts.leadingRecord($0)?.line } == 1234)
            // What JSONEncoder writes for the same three fields, byte for byte.
            struct Texts: Encodable { var line: Int; var notes: String?; var review: String? }
            let encoded = try? JSONEncoder.shelfline.encode(Texts(line: 1234, notes: notes, review: review))
            #expect(encoded.map(Array.init) == bytes)
        }
    }

    @Test(.bug(id: 25)) func onlyLineReviewAndNotesPassForATextsLine() {
        #expect(Self.decode(#"{"line":7,"review":null,"notes":"n"}"#)?.notes == "n")
        for text in [
            #"{"line":7,"review":"r","title":"Other"}"#, #"{"review":"r"}"#, #"{"line":"7","review":"r"}"#,
            #"{"line":7,"review":3}"#, #"{"line":7,"review":"r"} x"#, #"{"line":7,"rev\u0069ew":"r"}"#,
            #"{"line":null,"review":"r"}"#, #"["line",7]"#, "",
        ] {
            #expect(Self.decode(text) == nil, "\(text)")
        }
    }

    @Test(.bug(id: 25)) func theLeadingLineIsReadOnlyFromTheWrittenShape() {
        func leading(_ text: String) -> Int? { Array(text.utf8).withUnsafeBytes { RecordTexts.leadingRecord($0)?.line } }
        #expect(leading(#"{"line":42,"review":"r"}"#) == 42)
        #expect(leading(#"{"line":42}"#) == 42)
        for text in [
            #"{"review":"r","line":42}"#, #"{"line":-1,"review":"r"}"#, #"{"line":42x}"#, #"{"line":}"#,
            #"{"line":1234567890123456789012}"#, #"{"line":42"#,
        ] {
            #expect(leading(text) == nil, "\(text)")
        }
    }

    @Test(.bug(id: 25)) func readRecordsPutsTheTextsBackAndRefusesAMissingOne() throws {
        let temp = TemporaryDirectory("record-texts")
        var apart = BookRecord(format: .goodreads, line: 2, title: "A")
        apart.textsApart = true
        let plain = BookRecord(format: .goodreads, line: 3, title: "B")
        let records = temp.file("parsed.ndjson.gz")
        try GzipFixture.write([apart, plain], to: records)
        var texts: [UInt8] = []
        RecordTexts.appendLine(line: 2, review: "review of A", notes: nil, to: &texts)
        _ = try GzipFixture.write(bytes: texts + [0x0A], to: RecordTexts.path(besides: records))
        let read = try RecordTexts.readRecords(path: records)
        #expect(read.map(\.review) == ["review of A", nil] && read.allSatisfy { $0.textsApart == nil })
        _ = try GzipFixture.write(bytes: [], to: RecordTexts.path(besides: records))
        #expect(throws: FileError.self) { _ = try RecordTexts.readRecords(path: records) }
        #expect(RecordTexts.path(besides: "parsed.ndjson.gz") == "texts.ndjson.gz")
        #expect(RecordTexts.path(besides: "/run/x/parsed.ndjson.gz") == "/run/x/texts.ndjson.gz")
    }
}
