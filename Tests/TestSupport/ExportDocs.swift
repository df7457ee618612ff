import Foundation

/// docs/export.md's list of the library fields each export format does not carry ("Library fields
/// each format does not carry"): the one list the docs state and the round-trip tests exclude, so
/// neither the tests nor the docs take it from the code under test.
public enum ExportDocs {
    public struct MissingList: Error, CustomStringConvertible {
        public var description: String
    }

    /// The fields `format` (`goodreads`, `storygraph`) does not carry: its row's and every format's.
    public static func notCarried(_ format: String) throws -> Set<String> {
        let rows = try table()
        guard let own = rows["`\(format)`"], let shared = rows["every format"] else {
            throw MissingList(description: "docs/export.md: no row for `\(format)` or 'every format' in the not-carried table")
        }
        return own.union(shared)
    }

    /// The table's rows: first cell → the backticked names of the second.
    static func table() throws -> [String: Set<String>] {
        let text = try String(contentsOfFile: ExecutableRunner.repositoryRoot + "/docs/export.md", encoding: .utf8)
        guard let heading = text.range(of: "### Library fields each format does not carry") else {
            throw MissingList(description: "docs/export.md: no section 'Library fields each format does not carry'")
        }
        var rows: [String: Set<String>] = [:]
        for line in text[heading.upperBound...].split(separator: "\n").drop(while: { !$0.hasPrefix("|") })
            .prefix(while: { $0.hasPrefix("|") })
        {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, !cells[0].hasPrefix("---"), cells[0] != "format" else { continue }
            let names = cells[1].split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 }.map { String($0.element) }
            rows[cells[0]] = Set(names)
        }
        return rows
    }
}
