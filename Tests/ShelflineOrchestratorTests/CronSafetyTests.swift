import Foundation
import ShelflineCore
import TestSupport
import TestTraits
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 15's orchestrator rules with stand-in stages (real `shelfline`, real processes), where
/// the rule needs a state real stages would take long to reach: aged runs, a stage held running.
@Suite(.serialized, .offCooperativePool) struct CronSafetyTests {
    typealias Fixture = OrchestratorRulesTests.Fixture

    func age(_ run: String, days: Double, _ fixture: Fixture) throws {
        for directory in [run, run + "/.manifests"] {
            for name in try FileManager.default.contentsOfDirectory(atPath: directory) {
                try fixture.setModificationTime(directory + "/" + name, secondsAgo: days * 86_400)
            }
        }
    }

    @Test(.bug(id: 15)) func cleanStaleKeepsFinishedRunsWhenTheConfigChanged() throws {
        let fixture = try Fixture()
        #expect(try fixture.run().status == 0)
        let finished = fixture.runDirectory
        try age(finished, days: 3, fixture)
        // An incomplete run, also old, of another export.
        let other = fixture.dir.write("other.csv", "Book Id,Title\n9,Beloved\n")
        #expect(try fixture.run(["STANDIN_FAIL_lookup": "65"], arguments: ["run", "--csv", other]).status == 65)
        let incomplete = fixture.runDirectory(for: other)
        try age(incomplete, days: 2, fixture)
        // Today's config differs from the one the finished run used.
        try ConfigFile.edit(fixture.config) { $0.editParameters(of: "render") { $0["historyLimit"] = 50 } }

        let status = try fixture.run(arguments: ["status"])
        #expect(status.stdout.contains("stale: run \((incomplete as NSString).lastPathComponent)"), "\(status)")
        #expect(!status.stdout.contains("stale: run \((finished as NSString).lastPathComponent)"), "\(status)")
        let clean = try fixture.run(arguments: ["clean", "--stale"])
        #expect(clean.status == 0, "\(clean)")
        #expect(FileManager.default.fileExists(atPath: finished + "/merge-report.json"))
        #expect(!FileManager.default.fileExists(atPath: incomplete))
        #expect(fixture.latest == finished)
    }

    @Test(.bug(id: 15)) func cleanNeverLeavesLatestDangling() throws {
        let fixture = try Fixture()
        #expect(try fixture.run().status == 0)
        let older = fixture.runDirectory
        let newer = fixture.dir.write("newer.csv", "Book Id,Title\n7,Kindred\n")
        #expect(try fixture.run(arguments: ["run", "--csv", newer]).status == 0)
        #expect(fixture.latest == fixture.runDirectory(for: newer))
        // The run latest names is removed: latest moves to the run that is left.
        #expect(try fixture.run(arguments: ["clean"]).status == 0)
        #expect(fixture.latest == older)
        #expect(try fixture.run(arguments: ["clean"]).status == 0)
        let link = fixture.workspace + "/runs/latest"
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == nil, "no run left: no link")
    }

    @Test(.bug(id: 15)) func pausedRunShowsPausedAndIsNotEnded() throws {
        let fixture = try Fixture()
        let first = fixture.start(["STANDIN_SLEEP_lookup": "600"])
        first.standardError = FileHandle.nullDevice
        try first.run()
        try #require(waitUntil(watching: [fixture.log]) { fixture.stagesRun.contains("lookup") }, "lookup never started")
        first.terminate()
        first.waitUntilExit()
        #expect(first.terminationStatus == 75)
        let data = try Data(contentsOf: URL(fileURLWithPath: fixture.workspace + "/activity/import.json"))
        let snapshot = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(snapshot["event"] as? String == "update", "\(snapshot)")
        let step = (snapshot["contentState"] as? [String: Any])?["currentStep"] as? String ?? ""
        #expect(step.contains("Paused during lookup"), "\(snapshot)")
        #expect(fixture.latest == fixture.runDirectory, "a paused import is the latest")
    }

    @Test(.bug(id: 15)) func abandonedRunEndsItsActivityWhenCleaned() throws {
        let fixture = try Fixture()
        let first = fixture.start(["STANDIN_SLEEP_dedupe": "30"])
        first.standardError = FileHandle.nullDevice
        try first.run()
        let snapshotPath = fixture.workspace + "/activity/import.json"
        try #require(
            waitUntil(watching: [fixture.log, snapshotPath]) {
                fixture.stagesRun.contains("dedupe") && FileManager.default.fileExists(atPath: snapshotPath)
            },
            "the import never started its activity")
        // Killed outright: nothing can end the activity now but a later command.
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        try age(fixture.runDirectory, days: 2, fixture)
        #expect(try fixture.run(arguments: ["clean", "--stale"]).status == 0)
        let snapshot = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: snapshotPath))) as? [String: Any])
        #expect(snapshot["event"] as? String == "end", "\(snapshot)")
        let step = (snapshot["contentState"] as? [String: Any])?["currentStep"] as? String ?? ""
        #expect(step.contains("abandoned") && step.contains("Import the file again"), "\(snapshot)")
    }

    @Test(.bug(id: 15)) func sighupPausesLikeSigterm() throws {
        let fixture = try Fixture()
        let first = fixture.start(["STANDIN_SLEEP_dedupe": "600"])
        let errors = Pipe()
        first.standardError = errors
        try first.run()
        try #require(waitUntil(watching: [fixture.log]) { fixture.stagesRun.contains("dedupe") }, "dedupe never started")
        kill(first.processIdentifier, SIGHUP)
        first.waitUntilExit()
        #expect(first.terminationReason == .exit && first.terminationStatus == 75)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(stderr.contains("import paused during dedupe"), "\(stderr)")
        #expect(try fixture.run().status == 0)
        #expect(fixture.stagesRun == ["dedupe", "lookup", "merge", "render"])
    }

    @Test(.bug(id: 13)) func noArgumentsPrintsWhatToRunFirst() throws {
        let result = try ExecutableRunner.run("shelfline", [])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("make import CSV=examples/goodreads_library_export.csv"), "\(result)")
        #expect(result.stdout.contains("make test"), "\(result)")
    }
}
