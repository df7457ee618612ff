import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import Testing

/// Parse's texts file (the records' reviews and notes, apart from them: `RecordTexts`), through
/// the built executables: the orchestrator reruns parse when it changed (docs/parse.md), and merge
/// joins it only to the records of the parse that wrote it.
@Suite struct TextsFileEndToEndTests {
    static let example = ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv"
    static let config = ExecutableRunner.repositoryRoot + "/examples/pipeline.json"

    let temp = TemporaryDirectory("texts-e2e")

    func importExample() throws -> (arguments: [String], workspace: String) {
        let workspace = temp.file("ws")
        let arguments = ["run", "--csv", Self.example, "--config", Self.config, "--workspace", workspace]
        let first = try ExecutableRunner.run("shelfline", arguments, in: temp.path)
        try #require(first.status == 0, "\(first)")
        return (arguments, workspace)
    }

    func text(ofGzip path: String) throws -> String {
        var text = ""
        try GzipReader(path: path).forEachChunk { text += String(decoding: $0, as: UTF8.self) }
        return text
    }

    struct Change: CustomTestStringConvertible, Sendable {
        var name: String
        /// The texts file's new content from its text.
        var edit: @Sendable (String) -> String
        var testDescription: String { name }
    }

    static let changes: [Change] = [
        // Same length, same modification time: only the content says it changed.
        .init(name: "one letter of a review", edit: { $0.replacingOccurrences(of: "quiet", with: "QUIET") }),
        .init(name: "the same texts recompressed", edit: { $0 }),
    ]

    /// docs/parse.md: "a run whose texts file is gone or changed runs parse again"; parse writes
    /// it back as it was, so nothing after parse runs and the library is untouched.
    @Test(.bug("42"), arguments: changes)
    func aChangedTextsFileRerunsParseAlone(_ change: Change) throws {
        let (arguments, workspace) = try importExample()
        let texts = workspace + "/runs/latest/texts.ndjson.gz"
        let written = try Data(contentsOf: URL(fileURLWithPath: texts))
        let library = try Data(contentsOf: URL(fileURLWithPath: workspace + "/library/library.ndjson.gz"))
        let modified = try FileManager.default.attributesOfItem(atPath: texts)[.modificationDate]
        let original = try text(ofGzip: texts)
        let edited = change.edit(original)
        try #require(edited.utf8.count == original.utf8.count, "the edit keeps the length")
        // Several gzip members: other bytes even for the same text.
        try GzipFixture.write(text: edited, to: texts, chunkSize: 64)
        try #require(try Data(contentsOf: URL(fileURLWithPath: texts)) != written)
        try FileManager.default.setAttributes([.modificationDate: try #require(modified)], ofItemAtPath: texts)

        let second = try ExecutableRunner.run("shelfline", arguments, in: temp.path)
        #expect(second.status == 0, "\(second)")
        #expect(second.stderr.contains("stage=parse event=start reason=\"output modified: texts.ndjson.gz\""), "\(second)")
        for stage in ["dedupe", "lookup", "merge"] {
            #expect(second.stderr.contains("stage=\(stage) event=skip"), "\(second)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: texts)) == written, "parse wrote the texts again")
        #expect(try Data(contentsOf: URL(fileURLWithPath: workspace + "/library/library.ndjson.gz")) == library)
    }
}
