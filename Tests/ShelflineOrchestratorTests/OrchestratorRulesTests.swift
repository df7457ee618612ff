import Foundation
import ShelflineCommands
import ShelflineCore
import TestSupport
import TestTraits
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The orchestrator's restart rules (issue 5), each its own test, with the real `shelfline`
/// executable driving stand-in stage scripts (real processes) so every rule is tested in isolation
/// from what the stages compute.
@Suite(.serialized, .offCooperativePool) struct OrchestratorRulesTests {
    /// A workspace, a bin directory with `shelfline` and stand-in stages, an export and a log.
    final class Fixture {
        let dir = TemporaryDirectory("orchestrator")
        var bin: String { dir.file("bin") }
        var workspace: String { dir.file("ws") }
        var log: String { dir.file("stages.log") }
        let csv: String
        let config: String

        init(parameters: String = "{}") throws {
            try FileManager.default.createDirectory(atPath: dir.file("bin"), withIntermediateDirectories: true)
            let script = ExecutableRunner.repositoryRoot + "/Tests/ShelflineOrchestratorTests/Fixtures/stand-in-stage.sh"
            for stage in Stage.pipeline {
                try FileManager.default.createSymbolicLink(
                    atPath: dir.file("bin/\(stage.executable)"), withDestinationPath: script)
            }
            try FileManager.default.createSymbolicLink(
                atPath: dir.file("bin/shelfline"),
                withDestinationPath: ExecutableRunner.path("shelfline"))
            csv = dir.write("export.csv", "Book Id,Title\n1,Dune\n2,Kindred\n")
            let shipped = try String(contentsOfFile: ExecutableRunner.repositoryRoot + "/pipeline.json", encoding: .utf8)
            config = dir.write("pipeline.json", shipped)
            if parameters != "{}" { try setDedupeParameters(parameters) }
        }

        func setDedupeParameters(_ parameters: String) throws {
            let value = try JSONSerialization.jsonObject(with: Data(parameters.utf8))
            try ConfigFile.edit(config) { $0[stage: "dedupe"]?["parameters"] = value }
        }

        var environment: [String: String] { ["SHELFLINE_BIN": bin, "STANDIN_LOG": log] }

        func run(_ extra: [String: String] = [:], arguments: [String]? = nil) throws -> ProcessResult {
            try? FileManager.default.removeItem(atPath: log)
            let args = arguments ?? ["run", "--csv", csv]
            return try ExecutableRunner.run(
                "shelfline", args + ["--config", config, "--workspace", workspace],
                in: dir.path, environment: environment.merging(extra) { $1 })
        }

        /// `shelfline run --csv` started and not waited for (for tests that signal or kill it).
        func start(_ extra: [String: String]) -> Process {
            ExecutableRunner.start(
                "shelfline", ["run", "--csv", csv, "--config", config, "--workspace", workspace],
                environment: environment.merging(extra) { $1 })
        }

        /// Stages that ran in the last `run`, in order.
        var stagesRun: [String] {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        }

        /// The export's run (keyed by its content), whether or not it succeeded.
        var runDirectory: String { runDirectory(for: csv) }

        func runDirectory(for file: String) -> String {
            workspace + "/runs/" + String(try! ContentHash.file(file).prefix(16))
        }

        /// The run `runs/latest` names, if any.
        var latest: String? {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: workspace + "/runs/latest")).map {
                workspace + "/runs/" + $0
            }
        }

        func setModificationTime(_ path: String, secondsAgo: Double) throws {
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -secondsAgo)], ofItemAtPath: path)
        }
    }

    static let allStages = StageName.allCases.map(\.rawValue)

    @Test(.bug(id: 5)) func firstRunRunsEveryStageAndRerunIsANoOp() throws {
        let fixture = try Fixture()
        let first = try fixture.run()
        #expect(first.status == 0, "\(first)")
        #expect(fixture.stagesRun == Self.allStages)
        #expect(first.stderr.contains("stage=dedupe event=done"), "\(first)")
        let library = fixture.runDirectory
        let second = try fixture.run()
        #expect(second.status == 0, "\(second)")
        #expect(fixture.stagesRun.isEmpty)
        #expect(second.stdout.contains("already imported"), "\(second)")
        #expect(fixture.runDirectory == library)
    }

    @Test(.bug(id: 5)) func crashMidWriteRerunsTheStage() throws {
        let fixture = try Fixture()
        let crashed = try fixture.run(["STANDIN_HALF_lookup": "1"])
        #expect(crashed.status != 0, "\(crashed)")
        #expect(crashed.stderr.contains("lookup"), "\(crashed)")
        #expect(fixture.stagesRun == ["parse", "dedupe", "lookup"])
        let resumed = try fixture.run()
        #expect(resumed.status == 0, "\(resumed)")
        #expect(fixture.stagesRun == ["lookup", "merge", "render"])
        #expect(resumed.stderr.contains("stage=lookup event=start reason=\"never completed in this run\""), "\(resumed)")
    }

    @Test(.bug(id: 5)) func crashAfterPublishingBeforeManifestRerunsOnlyThatStage() throws {
        let fixture = try Fixture()
        #expect(try fixture.run().status == 0)
        // The state a crash between publishing dedupe's outputs and writing its manifest leaves.
        try FileManager.default.removeItem(atPath: fixture.runDirectory + "/.manifests/dedupe.json")
        let resumed = try fixture.run()
        #expect(resumed.status == 0, "\(resumed)")
        // Dedupe reruns; its output bytes come out identical, so nothing after it reruns.
        #expect(fixture.stagesRun == ["dedupe"])
    }

    @Test(.bug(id: 5)) func changedIntermediateWithOlderMtimeIsDetected() throws {
        let fixture = try Fixture()
        #expect(try fixture.run().status == 0)
        let intermediate = fixture.runDirectory + "/deduped.ndjson.gz"
        try Data("tampered\n".utf8).write(to: URL(fileURLWithPath: intermediate))
        try fixture.setModificationTime(intermediate, secondsAgo: 86_400 * 30)
        let resumed = try fixture.run()
        #expect(resumed.status == 0, "\(resumed)")
        #expect(fixture.stagesRun == ["dedupe"], "\(resumed)")
        #expect(resumed.stderr.contains("output modified: deduped.ndjson.gz"), "\(resumed)")
    }

    @Test(.bug(id: 5)) func changedParameterRerunsThatStage() throws {
        let fixture = try Fixture()
        #expect(try fixture.run().status == 0)
        try fixture.setDedupeParameters(#"{"titleAuthorKeys": false}"#)
        let plan = try fixture.run(arguments: ["plan"])
        #expect(plan.stdout.contains("dedupe: will run: parameters changed"), "\(plan)")
        let rerun = try fixture.run()
        #expect(rerun.status == 0, "\(rerun)")
        // Lookup's output is unchanged, so it is skipped; merge decodes dedupe's parameters too
        // (its keys must match dedupe's), so they are part of its fingerprint and it reruns (issue 9).
        #expect(fixture.stagesRun == ["dedupe", "merge"])
        #expect(rerun.stderr.contains("stage=merge event=start reason=\"parameters changed\""), "\(rerun)")
    }

    @Test(.bug(id: 5)) func touchWithoutChangeRerunsNothing() throws {
        let fixture = try Fixture()
        #expect(try fixture.run().status == 0)
        for name in try FileManager.default.contentsOfDirectory(atPath: fixture.runDirectory) where !name.hasPrefix(".") {
            try fixture.setModificationTime(fixture.runDirectory + "/" + name, secondsAgo: -60)
        }
        try fixture.setModificationTime(fixture.csv, secondsAgo: -60)
        let rerun = try fixture.run()
        #expect(rerun.status == 0, "\(rerun)")
        #expect(fixture.stagesRun.isEmpty)
        let status = try fixture.run(arguments: ["status"])
        #expect(status.status == 0, "\(status)")
    }

    @Test(.bug(id: 5)) func truncatedIntermediateIsDetected() throws {
        let fixture = try Fixture()
        #expect(try fixture.run().status == 0)
        let intermediate = fixture.runDirectory + "/parsed.ndjson.gz"
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: intermediate))
        try handle.truncate(atOffset: 5)
        try handle.close()
        let status = try fixture.run(arguments: ["status"])
        #expect(status.status == 1, "\(status)")
        #expect(status.stdout.contains("parse: will run: output modified: parsed.ndjson.gz"), "\(status)")
        #expect(try fixture.run().status == 0)
        #expect(fixture.stagesRun == ["parse"])
    }

    @Test(.bug(id: 5)) func failedStageStopsWithItsStatusAndKeepsEarlierOutputs() throws {
        let fixture = try Fixture()
        let failed = try fixture.run(["STANDIN_FAIL_lookup": "65"])
        #expect(failed.status == 65, "\(failed)")
        #expect(failed.stderr.contains("stage lookup failed with exit status 65"), "\(failed)")
        #expect(FileManager.default.fileExists(atPath: fixture.runDirectory + "/deduped.ndjson.gz"))
        #expect(try fixture.run().status == 0)
        #expect(fixture.stagesRun == ["lookup", "merge", "render"])
    }

    @Test(.bug(id: 5)) func missingStageExecutableNamesTheStage() throws {
        let fixture = try Fixture()
        try FileManager.default.removeItem(atPath: fixture.bin + "/shelfline-merge")
        let result = try fixture.run()
        #expect(result.status == 74, "\(result)")
        #expect(result.stderr.contains("stage merge: executable not found"), "\(result)")
    }

    @Test(.bug(id: 5)) func twoConcurrentRunsSecondExits75NamingTheHolder() throws {
        let fixture = try Fixture()
        let first = fixture.start(["STANDIN_SLEEP_parse": "3"])
        first.standardError = FileHandle.nullDevice
        try first.run()
        defer { if first.isRunning { first.terminate() } }
        // Wait until the first run holds the lock (its pid is written into the lock file).
        let lockFile = fixture.workspace + "/.lock"
        try #require(
            waitUntil(watching: [lockFile]) { ((try? String(contentsOfFile: lockFile, encoding: .utf8)) ?? "").contains("pid=") },
            "the first run never took the lock")
        let second = try fixture.run()
        #expect(second.status == 75, "\(second)")
        #expect(second.stderr.contains("pid=\(first.processIdentifier)"), "\(second)")
        first.waitUntilExit()
        #expect(first.terminationStatus == 0)
    }

    @Test(.bug(id: 5)) func lockOfAKilledRunDoesNotBlock() throws {
        let fixture = try Fixture()
        let first = fixture.start(["STANDIN_SLEEP_dedupe": "30"])
        first.standardError = FileHandle.nullDevice
        try first.run()
        try #require(waitUntil(watching: [fixture.log]) { fixture.stagesRun.contains("dedupe") }, "dedupe never started")
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        let next = try fixture.run()
        #expect(next.status == 0, "\(next)")
        #expect(fixture.stagesRun == ["dedupe", "lookup", "merge", "render"])
    }

    @Test(.bug(id: 5)) func sigtermPausesWith75ThenResumes() throws {
        let fixture = try Fixture()
        let first = fixture.start(["STANDIN_SLEEP_lookup": "30"])
        let errors = Pipe()
        first.standardError = errors
        try first.run()
        try #require(waitUntil(watching: [fixture.log]) { fixture.stagesRun.contains("lookup") }, "lookup never started")
        first.terminate()
        first.waitUntilExit()
        #expect(first.terminationStatus == 75)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(stderr.contains("import paused during lookup"), "\(stderr)")
        let resumed = try fixture.run()
        #expect(resumed.status == 0, "\(resumed)")
        #expect(fixture.stagesRun == ["lookup", "merge", "render"])
    }

    @Test(.bug(id: 5)) func quietPrintsNothingOnSuccess() throws {
        let fixture = try Fixture()
        let result = try fixture.run(arguments: ["run", "--csv", fixture.csv, "--quiet"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.isEmpty && result.stderr.isEmpty, "\(result)")
    }

    @Test(.bug(id: 5)) func missingCsvIs66AndBadConfigIs78() throws {
        let fixture = try Fixture()
        let missing = try fixture.run(arguments: ["run", "--csv", fixture.dir.file("nope.csv")])
        #expect(missing.status == 66, "\(missing)")
        #expect(missing.stderr.contains("nope.csv"), "\(missing)")
        try Data(
            #"{"stages": [{"name": "parse", "inputs": [], "outputs": [], "parameters": {}}, {"name": "frobnicate", "inputs": [], "outputs": [], "parameters": {}}]}"#
                .utf8
        )
        .write(to: URL(fileURLWithPath: fixture.config))
        let bad = try fixture.run()
        #expect(bad.status == 78, "\(bad)")
        #expect(bad.stderr.contains("stages[1].name"), "\(bad)")
    }

    @Test(.bug(id: 5)) func inboxImportsEachContentOnce() throws {
        let fixture = try Fixture()
        let inbox = fixture.dir.file("inbox")
        try FileManager.default.createDirectory(atPath: inbox, withIntermediateDirectories: true)
        fixture.dir.write("inbox/a.csv", "Book Id,Title\n1,Dune\n")
        fixture.dir.write("inbox/b.csv", "Book Id,Title\n2,Kindred\n")
        fixture.dir.write("inbox/copy-of-a.csv", "Book Id,Title\n1,Dune\n")
        let arguments = ["run", "--inbox", inbox, "--settle", "0"]
        #expect(try fixture.run(arguments: arguments).status == 0)
        #expect(fixture.stagesRun.filter { $0 == "parse" }.count == 2)
        #expect(try fixture.run(arguments: arguments).status == 0)
        #expect(fixture.stagesRun.isEmpty)
        fixture.dir.write("inbox/c.csv", "Book Id,Title\n3,Piranesi\n")
        #expect(try fixture.run(arguments: arguments).status == 0)
        #expect(fixture.stagesRun == Self.allStages)
    }

    @Test(.bug(id: 5)) func notifyCommandGetsTheEventOnStdin() throws {
        let fixture = try Fixture()
        let events = fixture.dir.file("events.json")
        try ConfigFile.edit(fixture.config) { $0.object["notify"] = ["/bin/sh", "-c", "cat >> '\(events)'"] }
        #expect(try fixture.run().status == 0)
        _ = try fixture.run(["STANDIN_FAIL_parse": "65"], arguments: ["run", "--csv", fixture.dir.write("other.csv", "x\n")])
        let lines = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n")
        let kinds = try lines.map { try JSONDecoder().decode(ImportEventProbe.self, from: Data($0.utf8)).event }
        #expect(kinds == ["finished", "failed"])
    }

    struct ImportEventProbe: Decodable { var event: String }

    @Test(.bug(id: 5)) func staleRunsAreListedAndCleaned() throws {
        let fixture = try Fixture()
        _ = try fixture.run(["STANDIN_FAIL_lookup": "65"])
        let run = fixture.runDirectory
        for name in try FileManager.default.contentsOfDirectory(atPath: run) {
            try fixture.setModificationTime(run + "/" + name, secondsAgo: 2 * 86_400)
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: run + "/.manifests") {
            try fixture.setModificationTime(run + "/.manifests/" + name, secondsAgo: 2 * 86_400)
        }
        let status = try fixture.run(arguments: ["status"])
        #expect(status.status == 1)
        #expect(status.stdout.contains("stale: run"), "\(status)")
        #expect(try fixture.run(arguments: ["clean", "--stale"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: run))
    }
}
