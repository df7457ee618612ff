import Foundation
import ShelflineCore
import TestSupport
import Testing

/// Issues 10 and 15 through the built `shelfline-render beer-queue`, run as cron runs it: no TTY,
/// `--quiet`, real files, real HTTP servers on loopback standing in for the site (and for the
/// other host a redirect names).
@Suite struct BeerQueueEndToEndTests {
    typealias E2E = RenderEndToEndTests
    static let secret = "e2e-SECRET-cookie-7f3a9b"

    /// Off Swift's cooperative pool (as every run here), so in-process servers keep answering.
    static func run(_ temp: TemporaryDirectory, _ arguments: [String]) async throws -> ProcessResult {
        try await E2E.beerQueueDetached(temp, arguments + ["--quiet"])
    }

    static func detached(_ temp: TemporaryDirectory, _ arguments: [String]) async throws -> ProcessResult {
        try await E2E.beerQueueDetached(temp, arguments + ["--quiet"])
    }

    static func report(_ temp: TemporaryDirectory) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: temp.file("ws/activity/beer-queue.report.json")))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func beers(_ snapshot: [String: Any]) -> [[String: Any]] {
        (snapshot["contentState"] as? [String: Any])?["beers"] as? [[String: Any]] ?? []
    }

    /// 10.5: a redirect to another origin is never followed with the cookie: the other host gets no
    /// request at all, the last queue is kept (marked offline) and the run exits 75.
    @Test(.bug(id: 10)) func pollNeverFollowsRedirectElsewhereWithCookie() async throws {
        let queuePage = try String(contentsOfFile: E2E.examples + "/queue.html", encoding: .utf8)
        let elsewhere = try await LoopbackHTTPServer { _ in .html(queuePage) }
        defer { Task { try? await elsewhere.shutdown() } }
        let mode = ModeBox()
        let site = try await LoopbackHTTPServer { request in
            switch mode.value {
            // The same host under another name is another origin too (a cookie is scoped to its host).
            case "other-host": return .redirect(to: elsewhere.baseURL + "/memberQueues.php")
            case "other-name":
                return .redirect(
                    to: "http://localhost:\(request.headers["host"]?.split(separator: ":").last ?? "")/memberQueues.php")
            case "ftp": return .redirect(to: "ftp://127.0.0.1/memberQueues.php")
            default: return .html(queuePage)
            }
        }
        defer { Task { try? await site.shutdown() } }
        let temp = try E2E.setUp(host: site.baseURL, timeout: 30)
        var results = [try await Self.detached(temp, ["--poll"])]
        #expect(results[0].status == 0, "\(results[0])")

        for redirect in ["other-host", "other-name", "ftp"] {
            mode.value = redirect
            let result = try await Self.detached(temp, ["--poll", "--user-triggered"])
            results.append(result)
            #expect(result.status == 75, "\(redirect): \(result)")
            #expect(result.stderr.contains("redirected") && result.stderr.contains("not followed"), "\(result)")
            let snapshot = try E2E.snapshot(temp)
            #expect(snapshot["offline"] as? Bool == true, "\(redirect): the last queue is kept, marked offline")
            #expect(Self.beers(snapshot).count == 3)
        }
        #expect(elsewhere.requests.isEmpty, "the other host was contacted: \(elsewhere.requests.map(\.headers))")
        #expect(site.requests.allSatisfy { $0.headers["cookie"] == E2E.cookie })
        #expect(!(try E2E.everything(temp, results)).contains(Self.secret))
    }

    /// 15 minor: plain http:// to a non-loopback host is refused before anything is sent (78).
    @Test(.bug(id: 15), arguments: ["http://www.beerknurd.com", "http://10.0.0.1:8080", "ftp://127.0.0.1", "not a url"])
    func plainHttpHostRefusedUnlessLoopback(_ host: String) async throws {
        let temp = try E2E.setUp(host: host)
        let result = try await Self.run(temp, ["--poll"])
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("beerQueue.host"), "\(result)")
        #expect(!result.stderr.contains(Self.secret))
        #expect(!FileManager.default.fileExists(atPath: temp.file("ws/activity/beer-queue.json")))
    }

    /// 10 "Also": a server that echoes the cookie into its page never gets it into a message, the
    /// report or a snapshot — neither in an error page (65) nor in a beer's name.
    @Test(.bug(id: 10)) func cookieEchoedByServerIsRedactedEverywhere() async throws {
        let mode = ModeBox()
        let site = try await LoopbackHTTPServer { request in
            let cookie = request.headers["cookie"] ?? ""
            if mode.value == "garbage" {
                return .html("<html><body><h3 class=\"brewName\">Hello \(cookie)</h3></body></html>")
            }
            return .html(
                """
                <html><body><h3 class="brewName">Session \(cookie) Stout<div class="brew_added_date">\(cookie)</div></h3>
                <a href="deleteQueuedBrew.php?cid=1">x</a>
                <h3 class="brewName">\(cookie)</h3><p>no link, echoed: \(cookie)</p>
                </body></html>
                """)
        }
        defer { Task { try? await site.shutdown() } }
        let temp = try E2E.setUp(host: site.baseURL, timeout: 30)
        var results = [try await E2E.beerQueueDetached(temp, ["--poll"])]
        #expect(results[0].status == 0, "\(results[0])")
        #expect(Self.beers(try E2E.snapshot(temp)).count == 1)
        mode.value = "garbage"
        results.append(try await E2E.beerQueueDetached(temp, ["--poll"]))
        #expect(results[1].status == 65, "\(results[1])")
        #expect(results[1].stderr.contains("<redacted>"), "\(results[1])")
        #expect(!(try E2E.everything(temp, results)).contains(Self.secret), "the cookie leaked into an output")
    }

    /// A saved page holding the cookie (saved from a logged-in browser) never puts it in an output either.
    @Test(.bug(id: 10)) func cookieInSavedPageIsRedacted() async throws {
        let temp = try E2E.setUp()
        let page = temp.write(
            "saved.html",
            """
            <html><body><h3 class="brewName">Hi \(E2E.cookie) IPA<div class="brew_added_date">\(Self.secret)</div></h3>
            <a href="deleteQueuedBrew.php?cid=9">x</a><h3 class="brewName">\(Self.secret)</h3></body></html>
            """)
        let bad = temp.write("bad.html", "<html><body><h3 class=\"brewName\">\(Self.secret)</h3></body></html>")
        let results = [try await E2E.beerQueueDetached(temp, ["--html", page]), try await Self.run(temp, ["--html", bad])]
        #expect(results[0].status == 0 && results[1].status == 65, "\(results)")
        #expect(!(try E2E.everything(temp, results)).contains(Self.secret), "the cookie leaked into an output")
    }

    /// 15.5: an answer over 8 MiB is cut off while it streams in (exit 75, queue kept offline).
    @Test(.bug(id: 15)) func pollAnswerOverLimitRefused() async throws {
        let queuePage = try String(contentsOfFile: E2E.examples + "/queue.html", encoding: .utf8)
        let mode = ModeBox()
        let huge = "<html><body>" + String(repeating: "<p>filler</p>", count: 700_000) + "</body></html>"
        let site = try await LoopbackHTTPServer { _ in mode.value == "huge" ? .html(huge) : .html(queuePage) }
        defer { Task { try? await site.shutdown() } }
        let temp = try E2E.setUp(host: site.baseURL, timeout: 30)
        var result = try await Self.detached(temp, ["--poll"])
        #expect(result.status == 0, "\(result)")
        mode.value = "huge"
        result = try await Self.detached(temp, ["--poll"])
        #expect(result.status == 75, "\(result)")
        #expect(result.stderr.contains("larger than 8388608 bytes"), "\(result)")
        #expect(try E2E.snapshot(temp)["offline"] as? Bool == true)
    }

    /// 15.5: a 512 MiB saved page is refused from its size (65), the snapshot untouched.
    @Test(.bug(id: 15)) func savedPageOverLimitRefused() async throws {
        let temp = try E2E.setUp()
        let path = temp.file("big.html")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 512 << 20)
        try handle.close()
        let result = try await Self.run(temp, ["--html", path])
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("big.html") && result.stderr.contains("larger than"), "\(result)")
    }

    /// 15.9: one malformed row is skipped and counted (log line and report); the valid beers show.
    @Test(.bug(id: 15)) func malformedRowSkippedNotWholePage() async throws {
        let temp = try E2E.setUp()
        var result = try await E2E.beerQueueDetached(temp, ["--html", E2E.examples + "/missing-id.html"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("skippedRows=1"), "\(result)")
        let snapshot = try E2E.snapshot(temp)
        #expect(Self.beers(snapshot).map { $0["id"] as? String } == ["4418377"])
        let report = try Self.report(temp)
        #expect(report["rows"] as? Int == 2 && report["beers"] as? Int == 1 && report["skippedRows"] as? Int == 1, "\(report)")
        // Every row malformed: still an error, the last queue kept.
        let bad = temp.write("bad.html", "<html><body><h3 class=\"brewName\">A</h3><h3 class=\"brewName\"> </h3></body></html>")
        result = try await Self.run(temp, ["--html", bad])
        #expect(result.status == 65, "\(result)")
        #expect(Self.beers(try E2E.snapshot(temp)).count == 1)
        #expect(try Self.report(temp)["skippedRows"] as? Int == 2)
    }

    /// 10 "Also" (docs/render.md): a page that is not a queue page while a queue is active keeps the
    /// last beers, marks them offline (stale now) and exits 65 — the same for a saved page and a poll.
    @Test(.bug(id: 10)) func garbagePageWhileQueueActiveMarksItOfflineAndExits65() async throws {
        let temp = try E2E.setUp()
        var result = try await Self.run(temp, ["--html", E2E.examples + "/queue.html"])
        #expect(result.status == 0, "\(result)")
        result = try await Self.run(temp, ["--html", E2E.examples + "/maintenance.html"])
        #expect(result.status == 65, "\(result)")
        #expect(result.stdout.isEmpty)
        let snapshot = try E2E.snapshot(temp)
        #expect(snapshot["offline"] as? Bool == true)
        #expect(snapshot["event"] as? String == "update")
        #expect(Self.beers(snapshot).count == 3)
        #expect(E2E.historyCount(temp) == 2)
        // Not repeated while it stays unreadable; cleared by the next good page.
        result = try await Self.run(temp, ["--html", E2E.examples + "/truncated.html"])
        #expect(result.status == 65)
        #expect(E2E.historyCount(temp) == 2)
        result = try await Self.run(temp, ["--html", E2E.examples + "/queue.html"])
        #expect(result.status == 0)
        #expect(try E2E.snapshot(temp)["offline"] == nil)
    }

    /// 15.6: garbage in any state file: the next cron run (and a user-triggered one, and an end)
    /// works; the bad file is set aside once as `*.corrupt-<time>` and named in one line.
    @Test(.bug(id: 15)) func corruptStateFilesHealThemselves() async throws {
        let temp = try E2E.setUp()
        var result = try await Self.run(temp, ["--html", E2E.examples + "/queue.html"])
        #expect(result.status == 0, "\(result)")
        for name in ["beer-queue.json", "beer-queue.budget.json", "beer-queue.history.ndjson"] {
            temp.write("ws/activity/" + name, "\u{0}garbage{")
        }
        result = try await Self.run(temp, ["--json", E2E.examples + "/queue.json", "--user-triggered"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.components(separatedBy: "set aside").count - 1 == 3, "\(result)")
        let names = try FileManager.default.contentsOfDirectory(atPath: temp.file("ws/activity"))
        #expect(names.filter { $0.contains(".corrupt-") }.count == 3, "\(names)")
        #expect(try E2E.snapshot(temp)["event"] as? String == "start")
        result = try await Self.run(temp, ["--html", E2E.examples + "/queue.html"])
        #expect(result.status == 0 && result.stderr.isEmpty, "healed: nothing more to say: \(result)")
        result = try await Self.run(temp, ["--html", E2E.examples + "/empty.html"])
        #expect(result.status == 0, "\(result)")
        #expect(try E2E.snapshot(temp)["event"] as? String == "end")
    }

    /// 10 "Also": NUL (raw or `&#0;`) and other controls in a page never reach the snapshot files.
    @Test(.bug(id: 10)) func controlCharactersStrippedFromSnapshots() async throws {
        let temp = try E2E.setUp()
        let page = temp.write(
            "nul.html",
            "<html><body><h3 class=\"brewName\">Nul\u{0}Beer&#0; &#x1b;[2J&#x9b;Ale<div class=\"brew_added_date\">Apr&#1; 08</div></h3>"
                + "<a href=\"deleteQueuedBrew.php?cid=5\">x</a></body></html>")
        let result = try await Self.run(temp, ["--html", page])
        #expect(result.status == 0, "\(result)")
        let text = try E2E.everything(temp, [result])
        #expect(!text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) })
        #expect(!text.contains("\\u0000") && !text.contains("\\u001b") && !text.contains("\\u0001"))
        #expect(Self.beers(try E2E.snapshot(temp)).first?["name"] as? String == "NulBeer [2JAle")
    }
}
