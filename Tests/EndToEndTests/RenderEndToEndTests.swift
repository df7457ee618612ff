import Foundation
import ShelflineCore
import TestSupport
import TestTraits
import Testing

/// `shelfline-render` as cron and the orchestrator run it: real executable, real files, a real
/// HTTP server on loopback standing in for the beer-queue site.
@Suite(.offCooperativePool) struct RenderEndToEndTests {
    static let cookie = "PHPSESSID=e2e-SECRET-cookie-7f3a9b"
    static let examples = ExecutableRunner.repositoryRoot + "/examples/beer-queue"

    /// A temp directory with `pipeline.json` (beerQueue settings pointing at `host`) and a
    /// credentials file of the given mode.
    static func setUp(
        host: String = "http://127.0.0.1:1", mode: Int16 = 0o600, visitor: Bool = false,
        timeout: Double = 5, maxUpdates: Int = 10
    ) throws -> TemporaryDirectory {
        let temp = TemporaryDirectory("render-e2e")
        temp.write(
            "pipeline.json",
            """
            {"stages": [], "beerQueue": {"host": "\(host)", "credentialsFile": "\(temp.file("queue.credentials"))",
             "memberId": "123456", "storeId": "13888", "storeLocation": "Example Saucer", "maxUpdatesPerHour": \(maxUpdates),
             "staleAfterMinutes": 15, "visitor": \(visitor), "timeoutSeconds": \(timeout)}}
            """)
        let credentials = temp.write("queue.credentials", cookie + "\n")
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: credentials)
        return temp
    }

    static func beerQueue(_ temp: TemporaryDirectory, _ arguments: [String]) throws -> ProcessResult {
        try ExecutableRunner.run(
            "shelfline-render",
            ["beer-queue"] + arguments + [
                "--workspace", temp.file("ws"),
                "--config", temp.file("pipeline.json"),
            ],
            in: temp.path)
    }

    /// Runs the executable off Swift's cooperative pool, so the in-process server keeps answering.
    static func beerQueueDetached(_ temp: TemporaryDirectory, _ arguments: [String]) async throws -> ProcessResult {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.blockingWork().async {
                continuation.resume(with: Result { try beerQueue(temp, arguments) })
            }
        }
    }

    static func snapshot(_ temp: TemporaryDirectory) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: temp.file("ws/activity/beer-queue.json")))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func historyCount(_ temp: TemporaryDirectory, _ name: String = "beer-queue") -> Int {
        guard let data = FileManager.default.contents(atPath: temp.file("ws/activity/\(name).history.ndjson")) else { return 0 }
        return data.split(separator: UInt8(ascii: "\n")).count
    }

    /// Every byte the run left behind, for the leak check.
    static func everything(_ temp: TemporaryDirectory, _ results: [ProcessResult]) throws -> String {
        var text = results.map { $0.stdout + $0.stderr }.joined()
        let activity = temp.file("ws/activity")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: activity)) ?? [] {
            text += String(decoding: try Data(contentsOf: URL(fileURLWithPath: activity + "/" + name)), as: UTF8.self)
        }
        return text
    }

    // MARK: - Import

    @Test(.bug(id: 6)) func importCommandEmitsStartEndAndReport() throws {
        let temp = TemporaryDirectory("render-e2e-import")
        let run = temp.file("ws/runs/0123abcd")
        try Workspace.makeDirectory(run)
        temp.write(
            "ws/runs/0123abcd/parse-report.json",
            """
            {"input": "goodreads_library_export.csv", "format": "goodreads", "delimiter": ",", "header": ["Book Id"],
             "headerByteOffset": 0, "headerByteLength": 7, "rowsRead": 12, "rowsWritten": 11, "rowsRejected": 1, "fieldsRepaired": 0}
            """)
        var result = try ExecutableRunner.run(
            "shelfline-render", ["import", "--run", run, "--workspace", temp.file("ws")], in: run)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("events=start"), "\(result)")
        temp.write(
            "ws/runs/0123abcd/merge-report.json",
            """
            {"importId": "0123abcd", "rowsRead": 12, "outcomes": {"rejected": 1, "added": 9, "updated": 1, "duplicateInFile": 1},
             "enrichment": {"matchedByIsbn": 8, "matchedBySearch": 1, "needsReview": 1, "notEnriched": 1}, "libraryBooks": 10,
             "ledger": "ledger.ndjson.gz", "review": "review.json", "failedRows": "failed-rows.csv"}
            """)
        result = try ExecutableRunner.run(
            "shelfline-render", ["import", "--run", run, "--workspace", temp.file("ws"), "--quiet"], in: run)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(result)")
        let data = try Data(contentsOf: URL(fileURLWithPath: temp.file("ws/activity/import.json")))
        let snapshot = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(snapshot["event"] as? String == "end")
        let state = try #require(snapshot["contentState"] as? [String: Any])
        #expect(state["successCount"] as? Int == 10)
        #expect(state["failureCount"] as? Int == 1, "rejected rows only (issue 13.5)")
        #expect(state["duplicateCount"] as? Int == 1)
        #expect(state["currentBookTitle"] == nil)
        #expect(Self.historyCount(temp, "import") == 2)
        // The page shows the merge report written above (issue 42: it only had to exist).
        let page = try ImportReportPageReading(path: run + "/report.html")
        #expect(page.title == "goodreads_library_export.csv")
        #expect(page.rowsRead == 12 && page.libraryBooks == 10, "\(page)")
        #expect(page.outcomes == ["added": 9, "updated": 1, "duplicateInFile": 1, "rejected": 1], "\(page)")
        #expect(
            page.charts["enrichment"]?["Matched by ISBN"] == 8 && page.charts["enrichment"]?["Matched by search"] == 1
                && page.charts["enrichment"]?["Not enriched"] == 1, "\(page)")
    }

    @Test(.bug(id: 6)) func importCommandWithMissingRunDirectoryIsExit66() throws {
        let temp = TemporaryDirectory("render-e2e-import")
        let result = try ExecutableRunner.run(
            "shelfline-render", ["import", "--run", temp.file("nope"), "--workspace", temp.file("ws")])
        #expect(result.status == 66, "\(result)")
        #expect(result.stderr.hasPrefix("shelfline-render: error: ") && result.stderr.contains("nope"), "\(result)")
    }

    @Test(.bug(id: 6)) func helpSaysWhatItReadsWritesAndExitStatuses() throws {
        for arguments in [["--help"], ["import", "--help"], ["beer-queue", "--help"]] {
            let result = try ExecutableRunner.run("shelfline-render", arguments)
            #expect(result.status == 0)
            #expect(result.stdout.contains("Exit status:") && result.stdout.contains("78"), "\(result)")
        }
        let queueHelp = try ExecutableRunner.run("shelfline-render", ["beer-queue", "--help"]).stdout
        #expect(queueHelp.contains("memberQueues.php") && queueHelp.contains("0600"))
    }

    // MARK: - Beer queue from files

    @Test(.bug(id: 6)) func beerQueueRendersSavedPages() async throws {
        let temp = try Self.setUp()
        var result = try await Self.beerQueueDetached(temp, ["--html", Self.examples + "/queue.html"])
        #expect(result.status == 0, "\(result)")
        var snapshot = try Self.snapshot(temp)
        #expect(snapshot["event"] as? String == "start")
        let state = try #require(snapshot["contentState"] as? [String: Any])
        #expect(state["queueCount"] as? Int == 3)
        #expect((state["beers"] as? [[String: Any]])?.first?["name"] as? String == "Founders KBS (2024)")
        #expect(state["storeLocation"] as? String == "Example Saucer")

        // The same page again: nothing new.
        result = try await Self.beerQueueDetached(temp, ["--html", Self.examples + "/queue.html"])
        #expect(result.status == 0, "\(result)")
        #expect(Self.historyCount(temp) == 1)

        // Pages that cannot be read: an error, the last beers kept and marked offline (once), never an end.
        for page in ["maintenance.html", "truncated.html"] {
            result = try await Self.beerQueueDetached(temp, ["--html", Self.examples + "/" + page])
            #expect(result.status == 65, "\(page): \(result)")
            #expect(result.stderr.contains(page))
            #expect(try Self.snapshot(temp)["event"] as? String == "update")
            #expect(try Self.snapshot(temp)["offline"] as? Bool == true)
        }
        #expect(Self.historyCount(temp) == 2)

        // Empty queue: end, dismissed now.
        result = try await Self.beerQueueDetached(temp, ["--html", Self.examples + "/empty.html"])
        #expect(result.status == 0, "\(result)")
        snapshot = try Self.snapshot(temp)
        #expect(snapshot["event"] as? String == "end")
        let aps = try #require((snapshot["apns"] as? [String: Any])?["aps"] as? [String: Any])
        #expect(aps["dismissal-date"] as? Int == snapshot["timestamp"] as? Int)

        // JSON queue file starts it again.
        result = try await Self.beerQueueDetached(temp, ["--json", Self.examples + "/queue.json"])
        #expect(result.status == 0, "\(result)")
        #expect(try Self.snapshot(temp)["event"] as? String == "start")
        #expect(((try Self.snapshot(temp)["contentState"] as? [String: Any])?["beers"] as? [Any])?.count == 2)

        // Login page: end with the generic state, exit 78 saying why.
        result = try await Self.beerQueueDetached(temp, ["--html", Self.examples + "/login.html"])
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("session expired"))
        snapshot = try Self.snapshot(temp)
        #expect(snapshot["event"] as? String == "end")
        #expect((snapshot["contentState"] as? [String: Any])?["lastUpdated"] as? String == "Please open app to refresh")
        #expect(Self.historyCount(temp) == 5)
    }

    @Test(.bug(id: 6)) func beerQueueUsageErrorsAreExit64AndMissingPageExit66() async throws {
        let temp = try Self.setUp()
        let none = try await Self.beerQueueDetached(temp, [])
        #expect(none.status == 64, "\(none)")
        let both = try await Self.beerQueueDetached(temp, ["--poll", "--html", "x"])
        #expect(both.status == 64, "\(both)")
        let missing = try await Self.beerQueueDetached(temp, ["--html", temp.file("missing.html")])
        #expect(missing.status == 66, "\(missing)")
    }

    @Test(.bug(id: 6)) func visitorModeWritesNothing() async throws {
        let temp = try Self.setUp(visitor: true)
        let result = try await Self.beerQueueDetached(temp, ["--html", Self.examples + "/queue.html"])
        #expect(result.status == 0, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: temp.file("ws/activity")))
    }

    // MARK: - Polling

    @Test(.bug(id: 6)) func pollRefusesCredentialsOthersCanRead() async throws {
        let temp = try Self.setUp(mode: 0o644)
        let result = try await Self.beerQueueDetached(temp, ["--poll"])
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("0600") && result.stderr.contains("queue.credentials"))
        #expect(!result.stderr.contains("SECRET"))
        #expect(!FileManager.default.fileExists(atPath: temp.file("ws/activity/beer-queue.json")))
    }

    /// Against a real server: the cookie goes in the request and nowhere else; a login page ends
    /// the activity; an unreachable site marks it offline (exit 75) and never ends it; the next
    /// good poll clears the mark.
    @Test(.bug(id: 6)) func pollReadsTheQueueFromALoopbackServer() async throws {
        let queuePage = try String(contentsOfFile: Self.examples + "/queue.html", encoding: .utf8)
        let loginPage = try String(contentsOfFile: Self.examples + "/login.html", encoding: .utf8)
        let mode = ModeBox()
        let server = try await LoopbackHTTPServer { request in
            if request.path == "/login.php" { return .html(loginPage) }
            guard request.path == "/memberQueues.php" else { return .html(status: 404, "<html>not found</html>") }
            switch mode.value {
            case "login": return .redirect(to: "/login.php")
            case "slow": return .html(queuePage, delay: .seconds(20))
            case "error": return .html(status: 503, "<html><body>busy</body></html>")
            case "drop": return .drop
            default: break
            }
            return .html(queuePage)
        }
        defer { Task { try? await server.shutdown() } }
        let temp = try Self.setUp(host: server.baseURL, timeout: 10)
        var results: [ProcessResult] = []

        var result = try await Self.beerQueueDetached(temp, ["--poll"])
        results.append(result)
        #expect(result.status == 0, "\(result)")
        #expect(try Self.snapshot(temp)["event"] as? String == "start")
        let request = try #require(server.requests.last)
        #expect(request.method == "GET")
        #expect(request.headers["cookie"] == Self.cookie)

        // HTTP 503, a timeout, a dropped connection: offline, last beers kept, exit 75 — never an end.
        for failure in ["error", "slow", "drop"] {
            mode.value = failure
            result = try await Self.beerQueueDetached(temp, ["--poll", "--user-triggered"])
            results.append(result)
            #expect(result.status == 75, "\(failure): \(result)")
            let snapshot = try Self.snapshot(temp)
            #expect(snapshot["event"] as? String == "update")
            #expect(snapshot["offline"] as? Bool == true)
            #expect((snapshot["contentState"] as? [String: Any])?["queueCount"] as? Int == 3)
        }

        // Back: the offline mark is cleared.
        mode.value = "ok"
        result = try await Self.beerQueueDetached(temp, ["--poll"])
        results.append(result)
        #expect(result.status == 0, "\(result)")
        #expect(try Self.snapshot(temp)["offline"] == nil)

        // Session expired (redirect to the login page): end, generic state, exit 78.
        mode.value = "login"
        result = try await Self.beerQueueDetached(temp, ["--poll"])
        results.append(result)
        #expect(result.status == 78, "\(result)")
        let ended = try Self.snapshot(temp)
        #expect(ended["event"] as? String == "end")
        #expect(!String(decoding: try JSONSerialization.data(withJSONObject: ended), as: UTF8.self).contains("Founders"))

        let everything = try Self.everything(temp, results)
        #expect(!everything.contains("e2e-SECRET-cookie-7f3a9b"), "the cookie leaked into an output")
        let events = try String(contentsOfFile: temp.file("ws/activity/beer-queue.history.ndjson"), encoding: .utf8)
            .split(separator: "\n").compactMap { line -> String? in
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return object?["event"] as? String
            }
        #expect(events == ["start", "update", "update", "end"], "\(events)")
    }

    /// Nothing listening at the host: with a running activity, an offline update and exit 75.
    @Test(.bug(id: 6)) func unreachableHostIsOfflineNeverEnd() async throws {
        let temp = try Self.setUp(host: "http://127.0.0.1:1")
        var result = try await Self.beerQueueDetached(temp, ["--json", Self.examples + "/queue.json"])
        #expect(result.status == 0, "\(result)")
        result = try await Self.beerQueueDetached(temp, ["--poll"])
        #expect(result.status == 75, "\(result)")
        #expect(result.stderr.contains("127.0.0.1:1/memberQueues.php") && result.stderr.contains("offline"), "\(result)")
        let snapshot = try Self.snapshot(temp)
        #expect(snapshot["event"] as? String == "update")
        #expect(snapshot["offline"] as? Bool == true)
        #expect(!(try Self.everything(temp, [result])).contains("SECRET"))
    }
}

/// A mutable value shared with the server's handler.
final class ModeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var current = "ok"
    var value: String {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }
}
