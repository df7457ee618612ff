import Foundation
import ShelflineCommands
import TestSupport
import Testing

@testable import ShelflineCore
@testable import ShelflineOrchestrator

/// StagePlanner's rules (issue 9 item 7), one table row per rule, against real files and
/// manifests in a temporary run directory, without running any stage.
@Suite struct StagePlannerTests {
    /// A run of two stages (parse → dedupe) whose manifests record what the files hold now.
    final class Fixture {
        let dir = TemporaryDirectory("planner")
        let workspace: Workspace
        let run: RunDirectory
        var config: PipelineConfig
        var planner: StagePlanner { StagePlanner(config: config, stages: Stage.pipeline, workspace: workspace) }

        init() throws {
            workspace = Workspace(root: dir.file("ws"))
            run = RunDirectory(id: "0123456789abcdef", workspace: workspace)
            try Workspace.makeDirectory(run.manifestsDirectory)
            config = PipelineConfig(stages: [
                StageDeclaration(
                    name: .parse, inputs: ["{csv}"], outputs: ["parsed.ndjson.gz"],
                    parameters: .object(["format": .string("auto")])),
                StageDeclaration(name: .dedupe, inputs: ["parsed.ndjson.gz", "{decisions}"], outputs: ["deduped.ndjson.gz"]),
            ])
            dir.write("ws/runs/0123456789abcdef/input.csv", "Book Id,Title\n1,Dune\n")
            dir.write("ws/runs/0123456789abcdef/parsed.ndjson.gz", "parsed")
            dir.write("ws/runs/0123456789abcdef/deduped.ndjson.gz", "deduped")
            for stage in [StageName.parse, .dedupe] { try complete(stage) }
        }

        /// Writes the manifest a successful run of `stage` leaves, for the files as they are now.
        func complete(_ stage: StageName) throws {
            let declaration = try config.declaration(stage)
            guard case .success(let inputs) = try planner.inputStamps(declaration, run: run, previous: nil) else {
                Issue.record("inputs of \(stage) missing")
                return
            }
            let outputs = try declaration.outputs.map {
                try #require(try FileStamp.make(name: $0, path: run.file($0), previous: nil))
            }
            let hash = planner.parametersHash(stage)
            let manifest = StageManifest(
                stage: stage,
                fingerprint: StageManifest.fingerprint(stage: planner.description(stage), parametersHash: hash, inputs: inputs),
                algorithmVersion: planner.description(stage).algorithmVersion, parametersHash: hash, inputs: inputs,
                outputs: outputs, durationMs: 1, finishedAt: 0)
            try writeJSONFile(manifest, to: run.manifestPath(stage))
        }

        func editManifest(_ stage: StageName, _ change: (inout StageManifest) -> Void) throws {
            var manifest = try #require(run.manifest(stage))
            change(&manifest)
            try writeJSONFile(manifest, to: run.manifestPath(stage))
        }
    }

    /// One rule: what is changed after both stages completed, and the plan that must follow.
    struct Rule: CustomTestStringConvertible, Sendable {
        var name: String
        var change: @Sendable (Fixture) throws -> Void
        var parse: StageDecision
        var dedupe: StageDecision
        var testDescription: String { name }
    }

    static let rules: [Rule] = [
        Rule(name: "nothing changed: both up to date", change: { _ in }, parse: .upToDate, dedupe: .upToDate),
        Rule(
            name: "no manifest: never completed",
            change: { try FileManager.default.removeItem(atPath: $0.run.manifestPath(.parse)) },
            parse: .run(reason: "never completed in this run"), dedupe: .waiting(on: .parse)),
        Rule(
            name: "older algorithm version", change: { try $0.editManifest(.dedupe) { $0.algorithmVersion = 0 } },
            parse: .upToDate,
            dedupe: .run(
                reason: "algorithm version changed (0 → \(Stage.pipeline.named(.dedupe)!.algorithmVersion))")),
        Rule(
            name: "parameters changed", change: { $0.config.stages[0].parameters = .object(["format": .string("goodreads")]) },
            parse: .run(reason: "parameters changed"), dedupe: .waiting(on: .parse)),
        Rule(
            name: "an output the next stage reads deleted",
            change: { try FileManager.default.removeItem(atPath: $0.run.file("parsed.ndjson.gz")) },
            parse: .run(reason: "output missing: parsed.ndjson.gz"), dedupe: .waiting(on: .parse)),
        Rule(
            name: "optional input appeared", change: { $0.dir.write("ws/library/decisions.json", "{}") },
            parse: .upToDate, dedupe: .run(reason: "input changed: {decisions}")),
        Rule(
            name: "output modified with the same size",
            change: { $0.dir.write("ws/runs/0123456789abcdef/deduped.ndjson.gz", "DEDUPED") },
            parse: .upToDate, dedupe: .run(reason: "output modified: deduped.ndjson.gz")),
        Rule(
            name: "output missing", change: { try FileManager.default.removeItem(atPath: $0.run.file("deduped.ndjson.gz")) },
            parse: .upToDate, dedupe: .run(reason: "output missing: deduped.ndjson.gz")),
        Rule(
            name: "input content changed",
            change: { $0.dir.write("ws/runs/0123456789abcdef/input.csv", "Book Id,Title\n2,Kindred\n") },
            parse: .run(reason: "input changed: {csv}"), dedupe: .waiting(on: .parse)),
        Rule(
            name: "touch without change",
            change: {
                try FileManager.default.setAttributes(
                    [.modificationDate: Date(timeIntervalSinceNow: 3600)], ofItemAtPath: $0.run.file("input.csv"))
            }, parse: .upToDate, dedupe: .upToDate),
    ]

    @Test(.bug(id: 9), arguments: rules) func eachPlannerRuleRerunsTheStagesItNames(_ rule: Rule) throws {
        let fixture = try Fixture()
        try rule.change(fixture)
        let plan = try fixture.planner.plan(run: fixture.run)
        #expect(plan.map(\.0) == [.parse, .dedupe])
        #expect(plan.first?.1 == rule.parse, "\(plan)")
        #expect(plan.last?.1 == rule.dedupe, "\(plan)")
    }

    @Test(.bug(id: 9)) func missingRequiredInputIsReportedByName() throws {
        let fixture = try Fixture()
        try FileManager.default.removeItem(atPath: fixture.run.file("parsed.ndjson.gz"))
        let declaration = try fixture.config.declaration(.dedupe)
        let stamps = try fixture.planner.inputStamps(declaration, run: fixture.run, previous: nil)
        #expect(stamps == .failure(StagePlanner.MissingInput(name: "parsed.ndjson.gz")))
        #expect(try fixture.planner.check(.dedupe, run: fixture.run).decision == .run(reason: "input missing: parsed.ndjson.gz"))
    }

    /// Issue 12: a stage's input stamp reuses the stamp this run took of it as an earlier stage's
    /// output while its stat facts match, and hashes it again once they do not.
    @Test(.bug(id: 12)) func anInputStampedAsAnOutputIsNotHashedAgain() throws {
        let fixture = try Fixture()
        let declaration = try fixture.config.declaration(.dedupe)
        let path = fixture.run.file("parsed.ndjson.gz")
        var known = try #require(try FileStamp.make(name: "parsed.ndjson.gz", path: path, previous: nil))
        let real = known.sha256
        known.sha256 = String(repeating: "0", count: 64)  // only a reused stamp can carry this hash
        guard
            case .success(let reused) = try fixture.planner.inputStamps(
                declaration, run: fixture.run, previous: nil,
                known: ["parsed.ndjson.gz": known])
        else {
            Issue.record("inputs missing")
            return
        }
        #expect(reused.first { $0.name == "parsed.ndjson.gz" }?.sha256 == known.sha256)
        // Touched: the facts differ, so the file is hashed again and gets its real hash.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: path)
        guard
            case .success(let rehashed) = try fixture.planner.inputStamps(
                declaration, run: fixture.run, previous: nil,
                known: ["parsed.ndjson.gz": known])
        else {
            Issue.record("inputs missing")
            return
        }
        #expect(rehashed.first { $0.name == "parsed.ndjson.gz" }?.sha256 == real)
    }

    /// A runner of a parse-only pipeline in `workspace` (no stage executable: nothing is run).
    static func parseOnlyRunner(in dir: TemporaryDirectory, workspace: Workspace) -> PipelineRunner {
        let config = PipelineConfig(stages: [StageDeclaration(name: .parse, inputs: ["{csv}"], outputs: ["parsed.ndjson.gz"])])
        return PipelineRunner(
            config: config, stages: Stage.pipeline, configPath: dir.file("absent.json"), workspace: workspace,
            binDirectory: dir.path,
            log: Logfmt(quiet: true), quiet: true, now: { Date(timeIntervalSince1970: 0) },
            cancellation: CancellationFlag(), reportType: { _ in nil })
    }

    /// The copy of an export is hashed as it is written: the stamp `prepareRun` leaves for parse's
    /// input is the copy's real hash and stat facts, so parse's input is not read again.
    @Test func preparingARunStampsTheCopyItWrote() throws {
        let dir = TemporaryDirectory("prepare")
        let export = dir.write("export.csv", "Book Id,Title\n1,Dune\n2,Emma\n")
        let workspace = Workspace(root: dir.file("ws"))
        var runner = Self.parseOnlyRunner(in: dir, workspace: workspace)
        let run = try runner.prepareRun(csv: export)
        let copy = try #require(run.existingInput)
        let stamp = try #require(runner.preparedInput)
        #expect(stamp == (try FileStamp.make(name: "{csv}", path: copy, previous: nil)))
        #expect(stamp.sha256 == (try ContentHash.file(export)))
        // Prepared again: the intact copy is kept, and its stamp is the same.
        let again = try runner.prepareRun(csv: export)
        #expect(again == run)
        #expect(runner.preparedInput == stamp)
    }

    /// Issue 25: a new export is copied while it is hashed (one read) and renamed into its run: the
    /// copy holds the export's bytes, the run is named by their hash, nothing is left beside the
    /// runs, and a rerun keeps the copy (same inode) rather than writing another.
    @Test(.bug(id: 25)) func aNewExportIsCopiedAndHashedInOneReadThenKeptOnARerun() throws {
        let dir = TemporaryDirectory("prepare-one-read")
        let text = (1...5000).map { "\($0),Title \($0) — ✓,\"a review, \($0)\"" }.joined(separator: "\n")
        let export = dir.write("export.csv", "Book Id,Title,Review\n" + text + "\n")
        let other = dir.write("other.csv", "Book Id,Title\n1,Dune\n")
        let workspace = Workspace(root: dir.file("ws"))
        var runner = Self.parseOnlyRunner(in: dir, workspace: workspace)
        let hash = try ContentHash.file(export)
        // What a killed import left between the copy and its rename (pid 2^22 + 1: above Linux's
        // pid_max, never alive) is swept.
        try Workspace.makeDirectory(workspace.runsDirectory)
        let stale = dir.write("ws/runs/.export.tmp-4194305", "half a copy")
        let run = try runner.prepareRun(csv: export)
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(run.id == RunDirectory.id(forContentHash: hash))
        let copy = try #require(run.existingInput)
        #expect(copy == run.inputPath(extension: "csv"))
        #expect(FileManager.default.contents(atPath: copy) == FileManager.default.contents(atPath: export))
        #expect(runner.preparedInput == (try FileStamp.make(name: "{csv}", path: copy, previous: nil)))
        #expect(runner.preparedInput?.sha256 == hash)
        var info = stat()
        #expect(stat(copy, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let inode = info.st_ino
        #expect(try FileManager.default.contentsOfDirectory(atPath: workspace.runsDirectory) == [run.id])
        // Another export: its own run; this one's copy untouched.
        let second = try runner.prepareRun(csv: other)
        #expect(second.id == RunDirectory.id(forContentHash: try ContentHash.file(other)))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: workspace.runsDirectory).sorted() == [run.id, second.id].sorted())
        // The first export again: the same run, its copy kept.
        let again = try runner.prepareRun(csv: export)
        #expect(again == run)
        #expect(stat(copy, &info) == 0 && info.st_ino == inode)
        #expect(runner.preparedInput?.sha256 == hash)
        // A run whose copy was damaged (same size, other bytes) gets a fresh copy of the export.
        var damaged = try #require(FileManager.default.contents(atPath: copy))
        damaged[damaged.count - 2] = UInt8(ascii: "X")
        try damaged.write(to: URL(fileURLWithPath: copy))
        _ = try runner.prepareRun(csv: export)
        #expect(FileManager.default.contents(atPath: copy) == FileManager.default.contents(atPath: export))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: workspace.runsDirectory).sorted() == [run.id, second.id].sorted())
    }
}
