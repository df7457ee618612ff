import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import TestTraits
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 15: `shelfline run` as cron runs it — no terminal, `--quiet`, an inbox — through the real
/// stage executables, offline against the example catalog.
@Suite(.serialized, .offCooperativePool) struct CronEndToEndTests {
    static let example = ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv"

    /// A workspace, an inbox and a config (the shipped one, catalog paths made absolute, plus `extra`).
    final class Cron {
        let dir = TemporaryDirectory("cron")
        var workspace: String { dir.file("ws") }
        var inbox: String { dir.file("inbox") }
        let config: String

        init(extra: [String: Any] = [:]) throws {
            let root = ExecutableRunner.repositoryRoot
            var object =
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: root + "/pipeline.json")))
                as! [String: Any]
            var stages = object["stages"] as! [[String: Any]]
            let lookup = stages.firstIndex { $0["name"] as? String == "lookup" }!
            var parameters = stages[lookup]["parameters"] as! [String: Any]
            parameters["catalog"] = (parameters["catalog"] as! [String]).map { root + "/" + $0 }
            stages[lookup]["parameters"] = parameters
            object["stages"] = stages
            for (key, value) in extra { object[key] = value }
            config = dir.file("pipeline.json")
            try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: config))
            try FileManager.default.createDirectory(atPath: dir.file("inbox"), withIntermediateDirectories: true)
        }

        /// The example's header and the given 1-based data rows, as an export.
        func export(_ name: String, rows: [Int]) throws -> String {
            let lines = try String(contentsOfFile: CronEndToEndTests.example, encoding: .utf8).split(separator: "\n")
            return dir.write(name, ([lines[0]] + rows.map { lines[$0] }).joined(separator: "\n") + "\n")
        }

        func shelfline(_ arguments: [String]) throws -> ProcessResult {
            try ExecutableRunner.run("shelfline", arguments + ["--config", config, "--workspace", workspace], in: dir.path)
        }

        func runInbox() throws -> ProcessResult {
            try shelfline(["run", "--inbox", inbox, "--settle", "0", "--quiet"])
        }

        var imported: [String: String] {
            ((try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: workspace + "/inbox-imported.json"))))
                as? [String: Any])?["imported"] as? [String: String] ?? [:]
        }

        var latest: String? { try? FileManager.default.destinationOfSymbolicLink(atPath: workspace + "/runs/latest") }

        func runId(_ file: String) throws -> String { String(try ContentHash.file(file).prefix(16)) }

        var activity: [String: Any] {
            get throws {
                let data = try Data(contentsOf: URL(fileURLWithPath: workspace + "/activity/import.json"))
                return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            }
        }
    }

    /// Runs `shelfline` as an unprivileged user when the tests run as root (root reads any file),
    /// so a mode-000 file is really unreadable.
    func runUnprivileged(_ cron: Cron, _ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        guard geteuid() == 0 else {
            let result = try cron.shelfline(arguments)
            return (result.status, result.stdout, result.stderr)
        }
        chmod(cron.dir.path, 0o777)
        chmod(cron.inbox, 0o777)
        for name in try FileManager.default.contentsOfDirectory(atPath: cron.dir.path) where name != "inbox" {
            chmod(cron.dir.file(name), 0o777)
        }
        let process = ExecutableRunner.start(
            "shelfline", arguments + ["--config", cron.config, "--workspace", cron.workspace],
            in: cron.dir.path)
        process.arguments =
            ["--reuid=65534", "--regid=65534", "--clear-groups", process.executableURL!.path] + process.arguments!
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        let out = cron.dir.file("unprivileged.out"), err = cron.dir.file("unprivileged.err")
        FileManager.default.createFile(atPath: out, contents: nil)
        FileManager.default.createFile(atPath: err, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        return (
            process.terminationStatus, try String(contentsOfFile: out, encoding: .utf8),
            try String(contentsOfFile: err, encoding: .utf8)
        )
    }

    @Test(.bug(id: 15)) func unreadableInboxFileBlocksOthers() throws {
        let cron = try Cron()
        _ = try cron.export("inbox/a.csv", rows: [1, 2, 3])
        let unreadable = try cron.export("inbox/b.csv", rows: [4, 5])
        _ = try cron.export("inbox/c.csv", rows: [6, 7, 8])
        chmod(unreadable, 0)
        let first = try runUnprivileged(cron, ["run", "--inbox", cron.inbox, "--settle", "0", "--quiet"])
        #expect(first.status == 66, "\(first)")
        #expect(first.stderr.contains("b.csv"), "\(first)")
        #expect(first.stdout.isEmpty, "\(first)")
        // Every readable file was imported, each exactly once.
        #expect(Set(cron.imported.values) == ["a.csv", "c.csv"], "\(cron.imported)")
        let report = try readJSONFile(MergeReport.self, from: cron.workspace + "/runs/latest/merge-report.json")
        #expect(report.libraryBooks == 6, "\(report)")
        // The failure is still reported on the next run, and nothing is imported twice.
        let second = try runUnprivileged(cron, ["run", "--inbox", cron.inbox, "--settle", "0", "--quiet"])
        #expect(second.status == 66, "\(second)")
        #expect(second.stderr.contains("b.csv") && !second.stderr.contains("a.csv"), "\(second)")
    }

    @Test(.bug(id: 15)) func junkInboxFileDoesNotHideTheRealImport() throws {
        let cron = try Cron()
        let header = try String(contentsOfFile: Self.example, encoding: .utf8).split(separator: "\n")[0]
        // No ISBN and no author: one row to review.
        let export = cron.dir.write(
            "inbox/export.csv", header + "\n1,Kindred,,,,=\"\",=\"\",4,4.0,,,,,,,2024/01/01,,,read,,,,1,0\n")
        cron.dir.write("inbox/readme.txt", "Drop your exports here.\n")
        let result = try cron.runInbox()
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("readme.txt"), "\(result)")
        #expect(cron.latest == (try cron.runId(export)), "latest must name the successful import")
        let review = try cron.shelfline(["review", "list"])
        #expect(review.status == 0, "\(review)")
        #expect(review.stdout.contains("Kindred"), "\(review)")
        let status = try cron.shelfline(["status"])
        #expect(status.status == 0, "\(status)")
        #expect(status.stdout.contains("failed: ") && status.stdout.contains("readme.txt"), "\(status)")
        #expect(!status.stdout.contains("export.csv"), "\(status)")
    }

    @Test(.bug(id: 15)) func failedImportEndsItsLiveActivity() throws {
        let cron = try Cron()
        let junk = cron.dir.write("notes.txt", "this is not an export\n")
        let result = try cron.shelfline(["run", "--csv", junk, "--quiet"])
        #expect(result.status == 65, "\(result)")
        let snapshot = try cron.activity
        #expect(snapshot["event"] as? String == "end", "\(snapshot)")
        let state = try #require(snapshot["contentState"] as? [String: Any])
        let step = state["currentStep"] as? String ?? ""
        #expect(step.contains("failed at parse") && step.contains("import it again"), "\(step)")
        let aps = (snapshot["apns"] as? [String: Any])?["aps"] as? [String: Any]
        let alert = (aps?["alert"] as? [String: Any])?["title"] as? String ?? ""
        #expect(alert.contains("Import failed"), "\(snapshot)")
    }

    @Test(.bug(id: 15)) func hangingNotifyIsKilledAfterItsTimeoutAndNeverHoldsTheLock() throws {
        let cron = try Cron(extra: ["notifyTimeoutSeconds": 1])
        let pidFile = cron.dir.file("notify.pid")
        try ConfigFile.edit(cron.config) {
            $0.object["notify"] = ["/bin/sh", "-c", "echo $$ > '\(pidFile)'; echo waiting; exec sleep 1000"]
        }
        _ = try cron.export("inbox/a.csv", rows: [1, 2])
        let result = try cron.runInbox()
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("notify: killed after 1 s"), "\(result)")
        let pid = try #require(
            pid_t((try String(contentsOfFile: pidFile, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) != 0, "the notify command outlived its timeout")
        let log = try String(contentsOfFile: cron.workspace + "/notify.log", encoding: .utf8)
        #expect(log.contains("waiting") && log.contains("killed after 1 s timeout"), "\(log)")
        // The workspace is free: the next cron run goes ahead.
        #expect(try cron.runInbox().status == 0)
    }

    @Test(.bug(id: 15)) func sigtermDuringNotifyStillStopsTheRun() throws {
        let cron = try Cron(extra: ["notifyTimeoutSeconds": 600])
        let pidFile = cron.dir.file("notify.pid")
        try ConfigFile.edit(cron.config) {
            $0.object["notify"] = [
                "/bin/sh", "-c", "echo $$ > '\(pidFile)'.part; mv '\(pidFile)'.part '\(pidFile)'; exec sleep 1000",
            ]
        }
        let csv = try cron.export("export.csv", rows: [1])
        let process = ExecutableRunner.start(
            "shelfline",
            [
                "run", "--csv", csv, "--quiet", "--config", cron.config,
                "--workspace", cron.workspace,
            ], in: cron.dir.path)
        process.standardError = FileHandle.nullDevice
        try process.run()
        try #require(waitUntil(watching: [pidFile]) { FileManager.default.fileExists(atPath: pidFile) }, "notify never started")
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationStatus == 75)
        let pid = try #require(
            pid_t((try String(contentsOfFile: pidFile, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) != 0, "the notify command outlived the run")
        // The lock is free for the next run (without the hanging notify, which it would run again).
        try ConfigFile.edit(cron.config) { _ = $0.object.removeValue(forKey: "notify") }
        #expect(try cron.shelfline(["run", "--csv", csv, "--quiet"]).status == 0, "the lock must be free")
    }

    @Test(.bug(id: 15)) func notifyOutputGoesToACappedLogNotStdout() throws {
        let cron = try Cron(extra: ["notify": ["/bin/sh", "-c", "head -c 10000000 /dev/zero | tr '\\0' x; echo; echo done >&2"]])
        _ = try cron.export("inbox/a.csv", rows: [1])
        let result = try cron.runInbox()
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stdout.isEmpty && result.stderr.isEmpty, "\(result.stdout.count) bytes on stdout; \(result.stderr.prefix(300))"
        )
        let log = try String(contentsOfFile: cron.workspace + "/notify.log", encoding: .utf8)
        #expect(log.utf8.count < 100_000, "\(log.utf8.count) bytes logged")
        #expect(log.contains("more bytes of output dropped") && log.contains("exit 0"), "\(log.suffix(300))")
    }

    @Test(.bug(id: 15)) func failingNotifyIsReportedInOneLine() throws {
        let cron = try Cron(extra: ["notify": ["/bin/sh", "-c", "echo oops; exit 3"]])
        _ = try cron.export("inbox/a.csv", rows: [1])
        let result = try cron.runInbox()
        #expect(result.status == 0, "the import itself succeeded: \(result)")
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.contains("exited with status 3"), "\(result)")
        #expect(!result.stderr.contains("oops") && result.stdout.isEmpty, "\(result)")
    }

    @Test(.bug(id: 15)) func futureMtimeIsReported() throws {
        let cron = try Cron()
        let file = try cron.export("inbox/a.csv", rows: [1])
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 86_400)], ofItemAtPath: file)
        let result = try cron.runInbox()
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("a.csv") && result.stderr.contains("in the future"), "\(result)")
        let loud = try cron.shelfline(["run", "--inbox", cron.inbox, "--settle", "0"])
        #expect(loud.stdout.contains("1 dated in the future"), "\(loud)")
    }

    @Test(.bug(id: 15)) func corruptInboxLedgerIsSetAsideAndRebuilt() throws {
        let cron = try Cron()
        _ = try cron.export("inbox/a.csv", rows: [1, 2])
        #expect(try cron.runInbox().status == 0)
        try Data("{ garbage".utf8).write(to: URL(fileURLWithPath: cron.workspace + "/inbox-imported.json"))
        let result = try cron.shelfline(["run", "--inbox", cron.inbox, "--settle", "0"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("nothing new (1 already imported"), "rebuilt from the runs: \(result)")
        let names = try FileManager.default.contentsOfDirectory(atPath: cron.workspace)
        #expect(names.contains { $0.hasPrefix("inbox-imported.json.corrupt-") }, "\(names)")
        #expect(cron.imported.count == 1)
    }

    @Test(.bug(id: 15)) func workspaceThatIsARegularFileIsNamed() throws {
        let cron = try Cron()
        cron.dir.write("ws", "not a directory")
        let csv = try cron.export("export.csv", rows: [1])
        let result = try cron.shelfline(["run", "--csv", csv, "--quiet"])
        #expect(result.status == 73, "\(result)")
        #expect(
            result.stderr.contains(cron.workspace) && result.stderr.contains("is a regular file, not a directory"), "\(result)")
        #expect(!result.stderr.contains("NSCocoaErrorDomain"), "\(result)")
    }

    @Test(.bug(id: 15)) func fractionForAnIntegerKeyNamesTheKey() throws {
        let cron = try Cron()
        try ConfigFile.edit(cron.config) { $0.editParameters(of: "render") { $0["historyLimit"] = 2.5 } }
        let result = try cron.shelfline(["run", "--csv", try cron.export("export.csv", rows: [1]), "--quiet"])
        #expect(result.status == 78, "\(result)")
        #expect(
            result.stderr.contains("stages[4].parameters.historyLimit")
                && result.stderr.contains("expected an integer, found 2.5"), "\(result)")
    }

    @Test(.bug(id: 13)) func inboxWithNothingNewSaysSoInOneLine() throws {
        let cron = try Cron()
        let old = try cron.export("inbox/a.csv", rows: [1])
        #expect(try cron.runInbox().status == 0)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -7200)], ofItemAtPath: old)
        cron.dir.write("inbox/b.csv", "Book Id,Title\n")  // just written: still settling
        let result = try cron.shelfline(["run", "--inbox", cron.inbox, "--settle", "3600"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.split(separator: "\n").count == 1 && result.stderr.isEmpty, "\(result)")
        #expect(result.stdout.contains("nothing new (1 already imported, 1 still being written)"), "\(result)")
        let quiet = try cron.shelfline(["run", "--inbox", cron.inbox, "--settle", "3600", "--quiet"])
        #expect(quiet.status == 0 && quiet.stdout.isEmpty && quiet.stderr.isEmpty, "\(quiet)")
    }

    @Test(.bug(id: 13)) func failureCountCountsOnlyRejectedRows() throws {
        let cron = try Cron()
        let result = try cron.shelfline(["run", "--csv", Self.example, "--quiet"])
        #expect(result.status == 0, "\(result)")
        let report = try readJSONFile(MergeReport.self, from: cron.workspace + "/runs/latest/merge-report.json")
        #expect(report.enrichment.notEnriched > 0, "the example has a book without metadata")
        let state = try #require(try cron.activity["contentState"] as? [String: Any])
        #expect(state["failureCount"] as? Int == report.outcomes.rejected, "\(state)")
        #expect(state["successCount"] as? Int == report.outcomes.added + report.outcomes.updated, "\(state)")
    }
}
