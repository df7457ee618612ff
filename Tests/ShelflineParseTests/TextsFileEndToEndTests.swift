import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import TestTraits
import Testing

/// Parse's texts file (the records' reviews and notes, apart from them: `RecordTexts`), through
/// the built executables: the orchestrator reruns parse when it changed (docs/parse.md), and merge
/// joins it only to the records of the parse that wrote it.
@Suite(.offCooperativePool) struct TextsFileEndToEndTests {
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
    @Test(.bug(id: 42), arguments: changes)
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

    /// Parses `csv` by hand into directory `name`; returns its records and report paths.
    func parse(_ name: String, _ csv: String) throws -> (records: String, report: String) {
        try FileManager.default.createDirectory(atPath: temp.file(name), withIntermediateDirectories: true)
        let input = temp.write("\(name)/export.csv", csv)
        let (records, report) = (temp.file("\(name)/parsed.ndjson.gz"), temp.file("\(name)/parse-report.json"))
        let result = try ExecutableRunner.run(
            "shelfline-parse", [input, "-o", records, "--report", report, "--quiet"], in: temp.path)
        try #require(result.status == 0, "\(result)")
        return (records, report)
    }

    /// Runs merge by hand into workspace directory `workspace` of the test (its outputs beside it).
    func merge(_ records: String, report: String, workspace: String) throws -> ProcessResult {
        try ExecutableRunner.run(
            "shelfline-merge",
            [
                records, "--parse-report", report, "--workspace", temp.file(workspace), "--report",
                temp.file("\(workspace)-merge.json"),
                "--ledger", temp.file("\(workspace)-ledger.ndjson.gz"), "--review", temp.file("\(workspace)-review.json"),
                "--failed-rows", temp.file("\(workspace)-failed.csv"), "--quiet",
            ], in: temp.path)
    }

    struct OtherExport: CustomTestStringConvertible, Sendable {
        var name: String
        /// The other export from the example's text; its reviews stay on the same source lines.
        var make: @Sendable (String) -> String
        var testDescription: String { name }
    }

    static let otherExports: [OtherExport] = [
        .init(
            name: "another review on the same line",
            make: { $0.replacingOccurrences(of: "A quiet, cold", with: "A loud, warm, odd") }),
        .init(
            name: "another book on the same line",
            make: {
                $0.replacingOccurrences(of: "The Left Hand of Darkness", with: "The Dispossessed")
                    .replacingOccurrences(of: "A quiet, cold", with: "An ambiguous utopia, cold")
            }),
    ]

    /// Merge run by hand with one parse's records and another parse's report (whose texts file
    /// that report names rightly, with reviews on the same source lines and as many rows): 65
    /// naming the texts file, the library untouched; with its own report the same records merge.
    @Test(.bug(id: 36), arguments: otherExports)
    func mergeRefusesTheTextsOfAnotherParseWhoseLinesCoincide(_ other: OtherExport) throws {
        let example = try String(contentsOfFile: Self.example, encoding: .utf8)
        let changed = other.make(example)
        try #require(changed != example, "the example changed: fix this test")
        let mine = try parse("mine", example)
        let theirs = try parse("theirs", changed)
        let myReport = try readJSONFile(ParseReport.self, from: mine.report)
        let theirReport = try readJSONFile(ParseReport.self, from: theirs.report)
        try #require(myReport.rowsRead == theirReport.rowsRead && myReport.texts?.lines == theirReport.texts?.lines)

        let refused = try merge(mine.records, report: theirs.report, workspace: "ws")
        #expect(refused.status == 65, "\(refused)")
        #expect(refused.stderr.contains(temp.file("theirs/texts.ndjson.gz")), "\(refused)")
        #expect(refused.stderr.contains("different parses"), "\(refused)")
        #expect(!FileManager.default.fileExists(atPath: temp.file("ws/library/library.ndjson.gz")))

        let merged = try merge(mine.records, report: mine.report, workspace: "ws")
        #expect(merged.status == 0, "\(merged)")
    }
}
