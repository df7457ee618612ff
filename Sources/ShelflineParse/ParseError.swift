import ShelflineCore

/// Why the parse stage could not read an export at all (a bad single row is a rejection instead).
public enum ParseError: ShelflineError, Equatable {
    case emptyFile(path: String)
    case binaryData(path: String, kind: String)
    /// `suggestion`: the closest formats and the `--columns` line that reads the file.
    case unrecognisedHeader(path: String, found: [String], expected: [String], suggestion: String?)
    /// `--format` was given but the header lacks columns it needs.
    case headerMismatch(path: String, format: String, missing: [String])
    /// The first row is a known export's data row; `command` reads the file anyway.
    case headerMissing(path: String, format: SourceFormat, fields: Int, command: String)
    case headerlessMismatch(path: String, reason: String)
    /// The outputs are still written.
    case tooManyRejected(path: String, rejected: Int, read: Int, threshold: Double, rejects: String?)

    public var exitStatus: ExitStatus { .dataError }

    /// Control characters shown as `\u{…}`, so the message stays on one line.
    static func printable(_ text: String) -> String {
        String(
            text.unicodeScalars.map { scalar in
                scalar.properties.generalCategory == .control ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
            }.joined())
    }

    public var description: String {
        switch self {
        case .emptyFile(let path):
            return "\(path): empty file (0 bytes): expected a library export with a header line"
        case .binaryData(let path, let kind):
            return "\(path): binary data (\(kind)), not a CSV or TSV export"
        case .unrecognisedHeader(let path, let found, let expected, let suggestion):
            let shown = found.prefix(6).map { Self.printable($0.count > 40 ? String($0.prefix(40)) + "…" : $0) }
            let more = found.count > 6 ? ", … (\(found.count) columns)" : ""
            return "\(path):1: unrecognised header [\(shown.joined(separator: ", "))\(more)]; expected "
                + expected.joined(separator: "; or ")
                + (suggestion.map { "; " + Self.printable($0) } ?? "")
                + " (or map the columns: --columns, or \"columns\" in pipeline.json's parse parameters, see docs/parse.md)"
        case .headerMismatch(let path, let format, let missing):
            return "\(path):1: not a \(format) export: header lacks \(missing.joined(separator: ", "))"
        case .headerMissing(let path, let format, let fields, let command):
            return "\(path):1: no header row: the first line looks like a \(format.rawValue) export's data row "
                + "(\(fields) fields); if the header was lost, read it with: \(command) "
                + "(pipeline.json: parse parameters {\"noHeader\": true, \"format\": \"\(format.rawValue)\"})"
        case .headerlessMismatch(let path, let reason):
            return "\(path):1: --no-header: \(reason)"
        case .tooManyRejected(let path, let rejected, let read, let threshold, let rejects):
            let share = read == 0 ? 0 : Double(rejected) / Double(read)
            let percent = (share * 1000).rounded() / 10
            return "\(path): \(rejected) of \(read) rows rejected (\(percent)%), more than maxRejectedShare "
                + "\(threshold)" + (rejects.map { "; see \($0)" } ?? "; rerun with --rejects FILE to see them")
        }
    }
}
