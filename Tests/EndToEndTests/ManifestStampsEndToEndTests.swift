import Foundation
import ShelflineCore
import ShelflineOrchestrator
import TestSupport
import TestTraits
import Testing

/// A stage's outputs are hashed, and its manifest written, while the next stage runs (issue 25):
/// every manifest must still hold the real hashes of what its stage wrote and read, so that a
/// rerun finds everything up to date and a changed file is still noticed.
@Suite(.offCooperativePool) struct ManifestStampsEndToEndTests {
    @Test func everyManifestHoldsTheHashesOfWhatItsStageWroteAndRead() throws {
        let examples = ExecutableRunner.repositoryRoot + "/examples"
        let dir = TemporaryDirectory("manifest-stamps")
        let arguments = [
            "run", "--csv", examples + "/goodreads_library_export.csv", "--config", examples + "/pipeline.json",
            "--workspace", dir.file("ws"), "--quiet",
        ]
        let first = try ExecutableRunner.run("shelfline", arguments, in: dir.path)
        #expect(first.status == 0, "\(first)")

        let run = RunDirectory(
            id: try #require(RunDirectory.all(in: Workspace(root: dir.file("ws"))).first).id,
            workspace: Workspace(root: dir.file("ws")))
        var written: [String: String] = [:]
        for stage in [StageName.parse, .dedupe, .lookup, .merge, .render] {
            let manifest = try #require(run.manifest(stage), "\(stage) has a manifest")
            for input in manifest.inputs where input.sha256 != "absent" {
                #expect(input.sha256.count == 64, "\(stage) input \(input.name): \(input.sha256)")
                if let earlier = written[input.name] {
                    #expect(input.sha256 == earlier, "\(stage) read \(input.name) as an earlier stage wrote it")
                }
            }
            for output in manifest.outputs {
                let path = output.name.hasPrefix("{") ? dir.file("ws/library/library.ndjson.gz") : run.file(output.name)
                #expect(output.sha256 == (try ContentHash.file(path)), "\(stage) output \(output.name)")
                written[output.name] = output.sha256
            }
        }
        #expect(written["parsed.ndjson.gz"] != nil && written["enriched.ndjson.gz"] != nil)

        let again = try ExecutableRunner.run("shelfline", arguments.filter { $0 != "--quiet" }, in: dir.path)
        #expect(again.status == 0, "\(again)")
        #expect(again.stdout.contains("already imported") || again.stderr.contains("already imported"), "\(again)")
    }
}
