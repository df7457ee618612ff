import Foundation
import ShelflineCore
import TestSupport
import TestTraits
import Testing

/// Issue 25 end to end: the built `shelfline-dedupe` and `shelfline-merge` on records whose
/// `shelfPositions` come in the compact shape parse now writes, in the object shape of older runs,
/// or in neither.
@Suite(.offCooperativePool) struct ShelfPositionsEndToEndTests {
    let temp = TemporaryDirectory("positions-e2e")

    /// Writes the run directories: source CSV, records, rejects, parse report.
    let files = LibraryEndToEndTests()

    /// A run directory `name/` with one record per item of `members`, each with those JSON members
    /// (shelves and positions) added after its own.
    func writeImport(_ name: String, _ members: [String]) throws -> String {
        let directory = try files.writeImport(name, members.indices.map { ("Book \($0 + 1)", "Ann Author", nil) })
        let parsed = directory + "/parsed.ndjson.gz"
        var text: [UInt8] = []
        for (line, extra) in zip(try PassThroughLine.lines(of: parsed), members) {
            text += line.dropLast() + Array(",\(extra)}\n".utf8)
        }
        try GzipFixture.write(bytes: text, to: parsed)
        return directory
    }

    /// Dedupe then merge `run` into `workspace`: (dedupe, merge).
    func importRun(_ run: String, workspace: String) throws -> (ProcessResult, ProcessResult) {
        let deduped = try ExecutableRunner.run(
            "shelfline-dedupe",
            [
                "parsed.ndjson.gz", "-o", "deduped.ndjson.gz",
                "--workspace", workspace,
            ], in: run)
        let merged = try ExecutableRunner.run(
            "shelfline-merge",
            [
                "deduped.ndjson.gz", "--parse-report", "parse-report.json",
                "--rejects", "rejects.ndjson.gz", "--import-id", "same",
                "--workspace", workspace, "--quiet",
            ], in: run)
        return (deduped, merged)
    }

    func libraryLines(_ workspace: String) throws -> [String] {
        try PassThroughLine.lines(of: workspace + "/library/library.ndjson.gz").map { String(decoding: $0, as: UTF8.self) }
    }

    @Test(.bug(id: 25)) func objectAndCompactPositionsMergeToTheSameLibrary() throws {
        let shelves = #""shelves":["to-read","fav","to-read"]"#
        let unaligned = #""shelfPositions":[{"position":4,"shelf":"fav"}],"shelves":["to-read","fav"]"#
        let old = try writeImport(
            "old",
            [
                #""shelfPositions":[{"position":339,"shelf":"to-read"},{"shelf":"fav"},{"position":2,"shelf":"to-read"}],"#
                    + shelves,
                unaligned,
            ])
        let new = try writeImport("new", [#""shelfPositions":[339,null,2],"# + shelves, unaligned])
        let oldRun = try importRun(old, workspace: temp.file("ws-old"))
        let newRun = try importRun(new, workspace: temp.file("ws-new"))
        #expect(oldRun.0.status == 0 && oldRun.1.status == 0, "\(oldRun)")
        #expect(newRun.0.status == 0 && newRun.1.status == 0, "\(newRun)")
        let library = try libraryLines(temp.file("ws-new"))
        #expect(library.count == 2)
        #expect(try libraryLines(temp.file("ws-old")) == library)
        // The library keeps its own (object) shape whatever the records held.
        #expect(
            library.contains {
                $0.contains(
                    #""shelfPositions":[{"position":339,"shelf":"to-read"},{"shelf":"fav"},{"position":2,"shelf":"to-read"}]"#)
            },
            "\(library)")
        #expect(library.contains { $0.contains(#""shelfPositions":[{"position":4,"shelf":"fav"}]"#) })
    }

    @Test(
        .bug(id: 25),
        arguments: [
            (#"[1,2,3]"#, "3 positions for 2 shelves"),
            (#"[1]"#, "1 positions for 2 shelves"),
            (#"[1.5,2]"#, "shelfPositions"),
            (#"[1,{"position":2,"shelf":"b"}]"#, "mixes positions"),
        ])
    func positionsThatDoNotFitStopMergeNamingTheLine(_ positions: String, _ reason: String) throws {
        let run = try writeImport("bad", [#""shelves":["a","b"]"#, #""shelfPositions":\#(positions),"shelves":["a","b"]"#])
        let workspace = temp.file("ws-bad")
        let (deduped, merged) = try importRun(run, workspace: workspace)
        #expect(deduped.status == 0, "dedupe passes reader fields through: \(deduped)")
        #expect(merged.status == 65, "\(merged)")
        let message = merged.stderr.trimmingCharacters(in: .newlines)
        #expect(
            !message.contains("\n") && message.contains("deduped.ndjson.gz:2: invalid record") && message.contains(reason),
            "\(message)")
        #expect(!FileManager.default.fileExists(atPath: workspace + "/library/library.ndjson.gz"))
    }
}
