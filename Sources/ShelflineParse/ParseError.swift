import ShelflineCore

/// Why the parse stage could not read an export at all (a bad single row is a rejection instead).
public struct ParseError: ShelflineError, Equatable {
    public var description: String

    init(_ description: String) { self.description = description }

    public var exitStatus: ExitStatus { .dataError }

    static func emptyFile(path: String) -> ParseError {
        ParseError("\(path): empty file (0 bytes): expected a library export with a header line")
    }

    /// `suggestion`: the closest formats and the `--columns` line that reads the file.
    static func unrecognisedHeader(path: String, found: [String], expected: [String], suggestion: String?) -> ParseError {
        let shown = found.prefix(6).map { printable($0.count > 40 ? String($0.prefix(40)) + "…" : $0) }
        let more = found.count > 6 ? ", … (\(found.count) columns)" : ""
        return ParseError(
            "\(path):1: unrecognised header [\(shown.joined(separator: ", "))\(more)]; expected "
                + expected.joined(separator: "; or ")
                + (suggestion.map { "; " + printable($0) } ?? "")
                + " (or map the columns: --columns, or \"columns\" in pipeline.json's parse parameters, see docs/parse.md)")
    }

    /// Control characters shown as `\u{…}`, so the message stays on one line.
    static func printable(_ text: String) -> String {
        String(
            text.unicodeScalars.map { scalar in
                scalar.properties.generalCategory == .control ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
            }.joined())
    }
}
