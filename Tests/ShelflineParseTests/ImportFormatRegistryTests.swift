import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineParse

/// The list of import formats is the one place a format is registered: the persisted names, the
/// schemas, `--format`, the help and docs/parse.md all agree with it.
@Suite struct ImportFormatRegistryTests {
    static let names = ImportFormats.all.map(\.name.rawValue)

    static func json(_ file: String) throws -> [String: Any] {
        let path = ExecutableRunner.repositoryRoot + "/docs/" + file
        return try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    /// Every persisted name has exactly one reader.
    @Test(.bug(id: 37)) func everyPersistedFormatHasOneRegisteredReader() {
        #expect(Set(Self.names).count == Self.names.count)
    }

    /// `--format` and the config accept `auto` and every registered format, nothing else.
    @Test(.bug(id: 37)) func formatChoicesAreTheRegisteredFormats() {
        #expect(FormatChoice.allCases.map(\.rawValue) == ["auto"] + Self.names)
        for name in Self.names { #expect(FormatChoice(rawValue: name)?.rawValue == name) }
        #expect(FormatChoice(rawValue: "csvish") == nil)
        for name in Self.names { #expect(FormatChoice.help.contains(name)) }
    }

    @Test(.bug(id: 37)) func pipelineSchemaListsTheRegisteredFormats() throws {
        let defs = try #require(try Self.json("pipeline.schema.json")["$defs"] as? [String: Any])
        let parse = try #require((defs["parseParameters"] as? [String: Any])?["properties"] as? [String: Any])
        let format = try #require(parse["format"] as? [String: Any])
        #expect(format["enum"] as? [String] == ["auto"] + Self.names)
    }

    @Test(.bug(id: 37)) func libraryBookSchemaListsThePersistedFormats() throws {
        // The `format` enum of the book's imports: the only enum holding "goodreads".
        let enums = try Self.enums(in: Self.json("library-book.schema.json")).filter { $0.contains("goodreads") }
        #expect(enums == [Self.names])
    }

    /// docs/parse.md: the usage line names every choice and "Formats recognised" has a row per format.
    @Test(.bug(id: 37)) func parseDocsListTheRegisteredFormats() throws {
        let text = try String(contentsOfFile: ExecutableRunner.repositoryRoot + "/docs/parse.md", encoding: .utf8)
        #expect(text.contains("[--format " + (["auto"] + Self.names).joined(separator: "|") + "]"))
        let section = try #require(text.components(separatedBy: "## Formats recognised").dropFirst().first)
        let table = section.components(separatedBy: "\n\n").first { $0.hasPrefix("| format") } ?? ""
        let rows = table.split(separator: "\n").filter { $0.hasPrefix("| `") }
        #expect(rows.map { $0.dropFirst(3).prefix { $0 != "`" } }.map(String.init) == Self.names)
        // Each row names the format's signature headers.
        for (format, row) in zip(ImportFormats.all, rows) where format.name != .generic {
            for alternatives in format.schema(ParseParameters()).signature {
                #expect(alternatives.contains { row.lowercased().contains("`\($0)`") }, "\(format.name): \(alternatives)")
            }
        }
    }

    static func enums(in value: Any) -> [[String]] {
        if let object = value as? [String: Any] {
            return (object["enum"] as? [String]).map { [$0] } ?? object.values.flatMap(enums)
        }
        if let array = value as? [Any] { return array.flatMap(enums) }
        return []
    }
}
