import Foundation
import ShelflineCore
import TestSupport
import TestTraits
import Testing

@testable import ShelflineParse

/// The list of import formats is the one place a format is registered: the persisted names, the
/// schemas, `--format`, the help and docs/parse.md all agree with it.
@Suite(.offCooperativePool) struct ImportFormatRegistryTests {
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

    /// docs/pipeline.schema.json's `parse.format` enum is generated from the list, and
    /// library-book.schema.json's from it (`codegen/fields.py`). A stale one fails naming the command
    /// that regenerates both; that run writes them and still fails once, so a rewrite is never silent.
    @Test(.bug(id: 37)) func pipelineSchemaFormatEnumIsGeneratedFromTheRegistry() throws {
        let path = ExecutableRunner.repositoryRoot + "/docs/pipeline.schema.json"
        let committed = try String(contentsOfFile: path, encoding: .utf8)
        let generated = try #require(Self.pipelineSchema(committed, formats: Self.names), "\(path): no parse format enum")
        guard generated != committed else { return }
        if ProcessInfo.processInfo.environment["SHELFLINE_WRITE_SCHEMA"] == "1" {
            try Data(generated.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
            let fields = try ExecutableRunner.run(
                "/usr/bin/env", ["python3", "codegen/fields.py"], in: ExecutableRunner.repositoryRoot)
            #expect(fields.status == 0, "codegen/fields.py: \(fields)")
            Issue.record(
                "rewrote \(path)'s parse format enum from ImportFormats.all, and library-book.schema.json: review and commit them"
            )
        } else {
            Issue.record(
                """
                \(path): parse's format enum is not ImportFormats.all; regenerate it with \
                SHELFLINE_WRITE_SCHEMA=1 swift test -c release -Xswiftc -enable-testing --filter ImportFormatRegistryTests
                """)
        }
    }

    /// `text` (docs/pipeline.schema.json) with parse's `format` enum written from `names`, `auto`
    /// first; every other byte as it was. Nil when the file has no such enum.
    static func pipelineSchema(_ text: String, formats names: [String]) -> String? {
        guard let parse = text.range(of: "\"parseParameters\": {"),
            let start = text.range(of: "\"format\": {\"enum\": [", range: parse.upperBound..<text.endIndex),
            let end = text.range(of: "]", range: start.upperBound..<text.endIndex)
        else { return nil }
        let list = (["auto"] + names).map { "\"\($0)\"" }.joined(separator: ", ")
        return text.replacingCharacters(in: start.upperBound..<end.lowerBound, with: list)
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
