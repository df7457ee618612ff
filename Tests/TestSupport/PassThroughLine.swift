import Foundation
import ShelflineCore

/// A record line written by hand rather than by `JSONEncoder`, for checking that a stage copies
/// the fields it does not read byte for byte: its review is longer than a gzip chunk (1 MiB) and
/// holds every JSON escape kind, among them escapes the encoder writes otherwise (`\/`, `\u00e9`,
/// `\u003c`, `\u0008` for `\b`, a surrogate pair, `\u2028`), so decoding and re-encoding the record
/// would change its bytes.
public enum PassThroughLine {
    /// One stretch of the review: an HTML review as Goodreads exports it, with every escape kind.
    public static let reviewUnit =
        #"<p>\"Quoted\" back\\slash \/ slash\b\f\n\r\t \u0000\u0001\u001f \u0008 \u00e9 \u00E9 \u2028\u2029 \ud83e\udd8a \u003cbr\/\u003e raw \#u{E9} \#u{65E5}\#u{672C}\#u{8A9E} \#u{1F98A}</p><br/>"#

    /// The line's bytes (no newline); `repeats` stretches of review (the default is over 1 MiB).
    public static func bytes(line: Int, title: String, author: String, isbn13: String?, repeats: Int = 9_000) -> [UInt8] {
        var text = #"{"format":"goodreads","line":\#(line),"byteOffset":\#(line * 100),"byteLength":99,"#
        text += #""title":"\#(title)","author":"\#(author)","#
        if let isbn13 { text += #""isbn13":"\#(isbn13)","# }
        text += #""notes":"a\/b \u00e9\n","shelves":["to-read","g-\u00e9t\u00e9"],"#
        // Positions in the shape parse writes since issue 25: aligned with `shelves`, which come first here.
        text += #""shelfPositions":[1,null],"rating":4.0,"#
        text += #""review":""# + String(repeating: reviewUnit, count: repeats) + #""}"#
        return Array(text.utf8)
    }

    /// The lines of a gzip NDJSON file.
    public static func lines(of path: String) throws -> [[UInt8]] {
        var lines: [[UInt8]] = []
        try GzipReader(path: path).forEachLine { bytes, _ in
            if !bytes.isEmpty { lines.append(Array(bytes)) }
        }
        return lines
    }

    /// Whether `output` is `input` with members spliced in before its closing brace, the first
    /// of them named `member`: `input`'s own bytes unchanged.
    public static func isSpliced(_ output: [UInt8], from input: [UInt8], member: String) -> Bool {
        let kept = input.dropLast()
        let added = Array(#","\#(member)":"#.utf8)
        return input.last == UInt8(ascii: "}") && output.count > input.count + added.count
            && output.starts(with: kept) && output[kept.count...].starts(with: added) && output.last == UInt8(ascii: "}")
    }
}
