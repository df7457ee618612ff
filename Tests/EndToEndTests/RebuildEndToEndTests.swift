import Foundation
import ShelflineCore
import TestSupport
import TestTraits
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `shelfline rebuild` through the built executable: stopped by a signal (SIGTERM exits 75 with its
/// scratch removed and the library unchanged; what a SIGKILL leaves is removed by the next
/// rebuild), and refusing a run whose files were edited since its stages wrote them.
@Suite(.serialized, .offCooperativePool) struct RebuildEndToEndTests {
    typealias Cron = CronEndToEndTests.Cron

    /// A workspace with the example imported, and `shelfline rebuild` started while this process
    /// holds the library's merge lock: the rebuild merges into its scratch, then waits for the lock
    /// before publishing. Returns once its scratch directory holds the rebuilt library.
    func rebuildWaitingForTheLock() throws -> (cron: Cron, process: Process, scratch: String, lock: Int32) {
        let cron = try Cron()
        let result = try cron.shelfline(["run", "--csv", CronEndToEndTests.example, "--quiet"])
        #expect(result.status == 0, "\(result)")
        let lock = open(cron.workspace + "/library/.merge.lock", O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        #expect(lock >= 0 && flock(lock, LOCK_EX) == 0)
        let process = ExecutableRunner.start(
            "shelfline", ["rebuild", "--quiet", "--config", cron.config, "--workspace", cron.workspace], in: cron.dir.path)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let scratch = cron.workspace + "/library/.rebuild-\(process.processIdentifier)"
        // A bound for a loaded machine, not a measured time.
        try #require(
            waitUntil(watching: [cron.workspace + "/library"]) {
                FileManager.default.fileExists(atPath: scratch + "/library/library.ndjson.gz")
            },
            "the rebuild never merged into \(scratch)")
        return (cron, process, scratch, lock)
    }

    /// Whether `signal` sent to the process `pid` waits to be delivered (`ShdPnd` in its status).
    static func signalPending(_ signal: Int32, in pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("ShdPnd:") }),
            let mask = UInt64(line.dropFirst("ShdPnd:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << UInt64(signal - 1)) != 0
    }

    func library(_ cron: Cron) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: cron.workspace + "/library/library.ndjson.gz"))
    }

    @Test(.bug(id: 36)) func sigtermStopsARebuildWith75AndRemovesItsScratch() throws {
        let (cron, process, scratch, lock) = try rebuildWaitingForTheLock()
        let before = try library(cron)
        kill(process.processIdentifier, SIGTERM)
        // The lock is let go only once the signal was taken (its handler ran): a signal still
        // pending when the rebuild gets the lock would be a rebuild stopped after it published.
        try #require(
            waitUntil(recheckingEvery: 0.01) { !Self.signalPending(SIGTERM, in: process.processIdentifier) },
            "SIGTERM never reached the rebuild")
        close(lock)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 75)
        #expect(!FileManager.default.fileExists(atPath: scratch))
        #expect(try library(cron) == before)
    }

    @Test(.bug(id: 36)) func aKilledRebuildsScratchIsRemovedByTheNextRebuild() throws {
        let (cron, process, scratch, lock) = try rebuildWaitingForTheLock()
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        close(lock)
        #expect(FileManager.default.fileExists(atPath: scratch), "SIGKILL leaves it")
        let next = try cron.shelfline(["rebuild"])
        #expect(next.status == 0, "\(next)")
        let left = try FileManager.default.contentsOfDirectory(atPath: cron.workspace + "/library").filter {
            $0.hasPrefix(".rebuild-")
        }
        #expect(left.isEmpty, "\(left)")
    }

    @Test(.bug(id: 36)) func rebuildRefusesARunWhoseFilesWereEditedAndNamesIt() throws {
        let cron = try Cron()
        let imported = try cron.shelfline(["run", "--csv", CronEndToEndTests.example, "--quiet"])
        #expect(imported.status == 0, "\(imported)")
        let id = try cron.runId(CronEndToEndTests.example)
        let run = cron.workspace + "/runs/" + id
        let before = try library(cron)
        // A rating changed by hand in the records merge reads.
        let enriched = run + "/enriched.ndjson.gz"
        var text =
            try PassThroughLine.lines(of: enriched).map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n") + "\n"
        let edited = text.replacingOccurrences(of: "\"rating\":5", with: "\"rating\":1")
        #expect(edited != text)
        text = edited
        _ = try GzipFixture.write(text: text, to: enriched)

        let refused = try cron.shelfline(["rebuild"])
        #expect(refused.status == 65, "\(refused)")
        #expect(refused.stderr.contains("run \(id)") && refused.stderr.contains("enriched.ndjson.gz"), "\(refused)")
        #expect(try library(cron) == before, "nothing was rebuilt")

        // Importing the export again redoes the run from its stored copy; then the rebuild goes ahead.
        #expect(try cron.shelfline(["run", "--csv", CronEndToEndTests.example, "--quiet"]).status == 0)
        let rebuilt = try cron.shelfline(["rebuild"])
        #expect(rebuilt.status == 0 && rebuilt.stdout.contains("library unchanged"), "\(rebuilt)")
    }
}
