import Foundation
import ShelflineCore
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The workspace's own state as `run`, `status`, `plan` and `clean` see it: failed imports that can
/// no longer be retried, a workspace that is not a directory, `runs/latest` replaced by hand, and
/// a config `plan` must judge exactly as `run` does.
@Suite(.serialized, .bug(id: 23)) struct WorkspaceStateEndToEndTests {
    typealias Cron = CronEndToEndTests.Cron

    func failedLines(_ result: ProcessResult) -> [Substring] {
        result.stdout.split(separator: "\n").filter { $0.hasPrefix("failed: ") }
    }

    @Test func aFailedInboxFileThatIsDeletedIsDroppedAndSaidOnce() throws {
        let cron = try Cron()
        _ = try cron.export("inbox/a.csv", rows: [1])
        let junk = cron.dir.write("inbox/readme.txt", "Drop your exports here.\n")
        #expect(try cron.runInbox().status == 65)
        var status = try cron.shelfline(["status"])
        #expect(failedLines(status).count == 1 && status.stdout.contains("readme.txt"), "\(status)")

        // `status` is the first to notice: it says so once, then the entry is gone for good.
        try FileManager.default.removeItem(atPath: junk)
        status = try cron.shelfline(["status"])
        #expect(status.status == 0, "\(status)")
        #expect(failedLines(status).isEmpty, "\(status)")
        #expect(
            status.stdout.contains("forgot the failed import of \(junk)") && status.stdout.contains("the file is gone"),
            "\(status)")
        status = try cron.shelfline(["status"])
        #expect(!status.stdout.contains("readme.txt"), "said once: \(status)")

        // The same when the next run is the first to notice (it says so on stderr, once).
        let other = cron.dir.write("inbox/notes.txt", "not an export\n")
        #expect(try cron.runInbox().status == 65)
        try FileManager.default.removeItem(atPath: other)
        let run = try cron.shelfline(["run", "--inbox", cron.inbox, "--settle", "0"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.contains("forgot the failed import of \(other)"), "\(run)")
        let again = try cron.shelfline(["run", "--inbox", cron.inbox, "--settle", "0"])
        let after = try cron.shelfline(["status"])
        #expect(!again.stderr.contains("notes.txt") && failedLines(after).isEmpty, "\(again)\n\(after)")
    }

    @Test func cleanFailedAndCleanAllForgetFailedImports() throws {
        let cron = try Cron()
        let good = try cron.export("good.csv", rows: [1, 2])
        #expect(try cron.shelfline(["run", "--csv", good, "--quiet"]).status == 0)
        let junk = cron.dir.write("junk.txt", "not an export\n")
        #expect(try cron.shelfline(["run", "--csv", junk, "--quiet"]).status == 65)
        #expect(failedLines(try cron.shelfline(["status"])).count == 1)

        let clean = try cron.shelfline(["clean", "--failed"])
        #expect(clean.status == 0 && clean.stdout.contains("forgot 1 failed import(s)"), "\(clean)")
        let status = try cron.shelfline(["status"])
        #expect(status.status == 0 && failedLines(status).isEmpty, "the import itself is untouched: \(status)")
        #expect(cron.latest == (try cron.runId(good)))

        #expect(try cron.shelfline(["run", "--csv", junk, "--quiet"]).status == 65)
        #expect(try cron.shelfline(["clean", "--all"]).status == 0)
        #expect(failedLines(try cron.shelfline(["status"])).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: cron.workspace + "/runs/" + (try cron.runId(good))))
    }

    @Test func planRefusesTheConfigRunRefuses() throws {
        let cron = try Cron()
        try ConfigFile.edit(cron.config) { $0.editParameters(of: "lookup") { $0["openLibrary"] = ["requestPerSecond": 2] } }
        let csv = try cron.export("export.csv", rows: [1])
        let run = try cron.shelfline(["run", "--csv", csv, "--quiet"])
        let plan = try cron.shelfline(["plan", "--csv", csv])
        #expect(run.status == 78, "\(run)")
        #expect(plan.status == 78, "\(plan)")
        #expect(
            plan.stderr.contains("openLibrary.requestPerSecond") && plan.stderr.contains("did you mean 'requestsPerSecond'"),
            "\(plan)")
        #expect(!plan.stdout.contains("will run"), "\(plan)")
        let message = { (result: ProcessResult) in result.stderr.split(separator: ":", maxSplits: 2).last ?? "" }
        #expect(message(plan) == message(run), "\(plan)\n\(run)")
    }

    @Test func statusOnAWorkspaceThatIsAFileOrASymlinkLoopIsAnError() throws {
        let cron = try Cron()
        cron.dir.write("ws", "not a directory")
        var status = try cron.shelfline(["status"])
        #expect(status.status == 2, "\(status)")
        #expect(status.stderr.contains(cron.workspace) && status.stderr.contains("is a regular file"), "\(status)")
        #expect(!status.stdout.contains("pending"), "\(status)")

        try FileManager.default.removeItem(atPath: cron.workspace)
        try FileManager.default.createSymbolicLink(atPath: cron.workspace, withDestinationPath: cron.dir.file("loop"))
        try FileManager.default.createSymbolicLink(atPath: cron.dir.file("loop"), withDestinationPath: cron.workspace)
        status = try cron.shelfline(["status"])
        #expect(status.status == 2, "\(status)")
        #expect(status.stderr.contains(cron.workspace) && status.stderr.contains("symbolic links"), "\(status)")

        // A workspace that does not exist yet is simply one with no run.
        try FileManager.default.removeItem(atPath: cron.workspace)
        status = try cron.shelfline(["status"])
        #expect(status.status == 1 && status.stdout.contains("pending: no run yet"), "\(status)")
    }

    @Test func runsLatestReplacedByADirectoryIsRefusedBeforeTheImport() throws {
        let cron = try Cron()
        let first = try cron.export("first.csv", rows: [1])
        #expect(try cron.shelfline(["run", "--csv", first, "--quiet"]).status == 0)
        let latest = cron.workspace + "/runs/latest"
        try FileManager.default.removeItem(atPath: latest)
        try FileManager.default.createDirectory(atPath: latest, withIntermediateDirectories: false)
        cron.dir.write("ws/runs/latest/notes.txt", "mine")
        let library = FileManager.default.contents(atPath: cron.workspace + "/library/library.ndjson.gz")

        let second = try cron.export("second.csv", rows: [2])
        let result = try cron.shelfline(["run", "--csv", second, "--quiet"])
        #expect(result.status == 73, "\(result)")
        #expect(result.stderr.contains(latest) && result.stderr.contains("is a directory"), "\(result)")
        let runs = try FileManager.default.contentsOfDirectory(atPath: cron.workspace + "/runs")
        #expect(!runs.contains(try cron.runId(second)), "refused before the import started: \(runs)")
        #expect(!runs.contains { $0.hasPrefix(".latest-") }, "\(runs)")
        #expect(FileManager.default.contents(atPath: latest + "/notes.txt") == Data("mine".utf8))
        #expect(FileManager.default.contents(atPath: cron.workspace + "/library/library.ndjson.gz") == library)
    }
}
