import Foundation
import ShelflineCore

/// Texts-file helpers only tests use: parse writes its texts lines with its own encoder, merge
/// streams them with `RecordTextsReader`.
extension RecordTexts {
    /// Without a newline; nil `row`: a line as parse version 4 wrote it.
    public static func appendLine(
        line: Int, row: (byteOffset: Int, byteLength: Int)? = nil, review: String?, notes: String?,
        to out: inout [UInt8]
    ) {
        out.append(UInt8(ascii: "{"))
        if let row {
            out.append(contentsOf: "\"byteLength\":\(row.byteLength),\"byteOffset\":\(row.byteOffset),".utf8)
        }
        out.append(contentsOf: "\"line\":".utf8)
        out.append(contentsOf: String(line).utf8)
        if let notes {
            out.append(contentsOf: ",\"notes\":".utf8)
            JSONString.append(notes, to: &out)
        }
        if let review {
            out.append(contentsOf: ",\"review\":".utf8)
            JSONString.append(review, to: &out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// The records at `path` with their texts back in place, all in memory (for tests and tools;
    /// merge streams, `RecordTextsReader`). Missing texts are `FileError.corrupt`.
    public static func readRecords(path: String, textsPath: String? = nil) throws -> [BookRecord] {
        var records: [BookRecord] = []
        try LineReader.forEachLine(path: path) { bytes, line in
            guard !bytes.isEmpty else { return }
            records.append(try BookRecordScan.decode(bytes, fields: .all, path: path, line: line).record)
        }
        guard records.contains(where: { $0.textsApart == true }) else { return records }
        let textsPath = textsPath ?? Self.path(besides: path)
        var texts: [Int: (review: String?, notes: String?)] = [:]
        try LineReader.forEachLine(path: textsPath) { bytes, line in
            guard !bytes.isEmpty else { return }
            guard let decoded = decode(bytes) else {
                throw FileError.corrupt(path: textsPath, line: line, reason: "not a texts line")
            }
            texts[decoded.line] = (decoded.review, decoded.notes)
        }
        for index in records.indices where records[index].textsApart == true {
            guard let found = texts[records[index].line] else {
                throw FileError.corrupt(path: textsPath, line: nil, reason: "no texts of source line \(records[index].line)")
            }
            records[index].review = found.review
            records[index].notes = found.notes
            records[index].textsApart = nil
        }
        return records
    }
}
