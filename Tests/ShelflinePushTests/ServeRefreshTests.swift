import APNsTestServer
import Foundation
import NIOHTTP1
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflinePush

/// A loopback beer-queue site whose page the test sets, a loopback APNs, and a `pipeline.json`
/// pointing both there: what `POST /v1/beer-queue/refresh` needs.
struct BeerQueueSite: Sendable {
    static let cookie = "PHPSESSID=serve-refresh-SECRET-4d2c"
    let site: LoopbackHTTPServer
    let page: PageBox
    let apns: APNsTestServer
    /// Set once the APNs is stopped (`stopAPNs`): a second shutdown of its event loops never returns.
    private let apnsStopped = PageBox("")

    init(_ push: PushFixture, page: String) async throws {
        let box = PageBox(page)
        self.page = box
        site = try await LoopbackHTTPServer { _ in box.response }
        apns = try await push.server()
    }

    /// `pipeline.json` with `beerQueue` (the loopback site, a 0600 cookie file) and `apns` (the loopback APNs).
    func writeConfig(
        _ push: PushFixture, maxUpdatesPerHour: Int = 10, apnsWaitBudget: Double = 60,
        apnsTimeout: Double = 30, name: String = "pipeline.json"
    ) throws -> String {
        let credentials = push.temp.write("queue.credentials", Self.cookie + "\n")
        chmod(credentials, 0o600)
        var config = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder.shelflinePretty.encode(PipelineConfig(stages: [])))
                as? [String: Any])
        config["beerQueue"] =
            [
                "host": site.baseURL, "credentialsFile": credentials, "memberId": "123456", "storeId": "13888",
                "storeLocation": "Example Saucer", "maxUpdatesPerHour": maxUpdatesPerHour, "timeoutSeconds": 30,
            ] as [String: Any]
        config["apns"] = try JSONSerialization.jsonObject(
            with: JSONEncoder.shelfline.encode(push.apnsConfig(host: apns.host, waitBudget: apnsWaitBudget, timeout: apnsTimeout))
        )
        return push.temp.write(
            name, String(decoding: try JSONSerialization.data(withJSONObject: config, options: [.prettyPrinted]), as: UTF8.self))
    }

    /// A queue page listing `beers`.
    static func page(_ beers: [String]) -> String {
        "<html><body>"
            + beers.enumerated().map { index, name in
                #"<h3 class="brewName">\#(name)<div class="brew_added_date">Apr 08, 2025 @ 03:10:18pm</div></h3>"#
                    + #"<a href="deleteQueuedBrew.php?cid=\#(4_418_000 + index)">Remove</a>"#
            }.joined() + "</body></html>"
    }

    /// APNs goes away (the site stays).
    func stopAPNs() async throws {
        apnsStopped.set("stopped")
        try await apns.shutdown()
    }

    func shutdown() async {
        try? await site.shutdown()
        if apnsStopped.text.isEmpty { try? await apns.shutdown() }
    }
}

/// The page (or status) the loopback site answers with.
final class PageBox: @unchecked Sendable {
    private let lock = NSLock()
    private var page: String
    private var status = 200

    init(_ page: String) { self.page = page }

    func set(_ page: String, status: Int = 200) {
        lock.withLock {
            self.page = page
            self.status = status
        }
    }

    var response: LoopbackResponse { lock.withLock { .html(status: status, page) } }
    var text: String { lock.withLock { page } }
}

/// `POST /v1/beer-queue/refresh` (issue 27): the built `shelfline-render` and `shelfline-push` run
/// against a loopback site and a loopback APNs.
@Suite(.bug(id: 27)) struct ServeRefreshTests {
    /// Every refresh is polled, rendered and pushed at once, the hourly budget notwithstanding (it is
    /// 1 here: a periodic run would defer the second update).
    @Test func refreshPushesTheNewQueueAtOnceBeyondTheHourlyBudget() async throws {
        let push = PushFixture("serve-refresh")
        let beers = BeerQueueSite.self
        let site = try await BeerQueueSite(push, page: beers.page(["Founders KBS", "Two Hearted"]))
        let config = try site.writeConfig(push, maxUpdatesPerHour: 1)
        let limits = ServeLimits(refreshBurst: 10)
        try await ServeFixture.with("serve-refresh", limits: limits, push: push, configPath: config) { serve in
            let secret = try await serve.addDevice("phone")
            let start = PushFixture.token(0x5a), update = PushFixture.token(0x5b)
            #expect(try await serve.put(start, secret: secret, kind: "start") == 201)
            #expect(try await serve.put(update, secret: secret, kind: "update") == 201)

            var answer = try await serve.send(.POST, "/v1/beer-queue/refresh", secret: secret)
            #expect(answer.status == 200, "\(answer)")
            #expect(answer.body == #"{"status":"sent","event":"start","delivered":1,"deferred":0}"# + "\n")
            #expect(site.apns.received.map { "\($0.token) \($0.event ?? "-")" } == ["\(start) start"])

            for (round, queue) in [["Founders KBS"], ["Founders KBS", "Allagash White"], ["Allagash White"]].enumerated() {
                site.page.set(beers.page(queue))
                answer = try await serve.send(.POST, "/v1/beer-queue/refresh", secret: secret)
                #expect(answer.status == 200, "round \(round): \(answer)")
                #expect(answer.body.contains(#""status":"sent","event":"update","delivered":1"#), "round \(round): \(answer)")
            }
            let updates = site.apns.received.filter { $0.token == update }
            #expect(updates.count == 3 && updates.allSatisfy { $0.event == "update" && $0.problems.isEmpty }, "\(updates)")
            #expect(updates.last.map { String(decoding: $0.body, as: UTF8.self) }?.contains("Allagash White") == true)

            // The same queue again: nothing to push.
            answer = try await serve.send(.POST, "/v1/beer-queue/refresh", secret: secret)
            #expect(answer.status == 200 && answer.body.contains(#""status":"unchanged","event":"nothing""#), "\(answer)")
            #expect(site.apns.received.count == 4)
            #expect(site.site.requests.allSatisfy { $0.headers["cookie"] == BeerQueueSite.cookie })
            #expect(serve.lines.all.contains("event=request method=POST route=/v1/beer-queue/refresh status=200 device=phone"))
        }
        await site.shutdown()
    }

    /// The site down: 502 and the activity offline; APNs down: 202, the push left for the next `send`.
    @Test func refreshAnswers502WhenTheSiteFailsAnd202WhenThePushMustWait() async throws {
        let push = PushFixture("serve-refresh-fail")
        let site = try await BeerQueueSite(push, page: BeerQueueSite.page(["Founders KBS"]))
        let config = try site.writeConfig(push, apnsTimeout: 5)
        try await ServeFixture.with("serve-refresh-fail", push: push, configPath: config) { serve in
            let secret = try await serve.addDevice("phone")
            let token = PushFixture.token(0x6c)
            #expect(try await serve.put(token, secret: secret) == 201)
            #expect(try await serve.send(.POST, "/v1/beer-queue/refresh", secret: secret).status == 200)

            site.page.set("down for maintenance", status: 503)
            var answer = try await serve.send(.POST, "/v1/beer-queue/refresh", secret: secret)
            #expect(answer.status == 502, "\(answer)")
            let snapshot =
                try JSONSerialization.jsonObject(with: Data(ActivityStoreFile.beerQueue(push.workspace).utf8)) as? [String: Any]
            #expect(snapshot?["offline"] as? Bool == true, "\(String(describing: snapshot))")
            // The offline mark still goes to the phone.
            #expect(site.apns.received.last?.event == "update")

            site.page.set(BeerQueueSite.page(["Founders KBS", "Heady Topper"]))
            try await site.stopAPNs()
            answer = try await serve.send(.POST, "/v1/beer-queue/refresh", secret: secret)
            #expect(answer.status == 202, "\(answer)")
            #expect(answer.body.contains(#""status":"queued","event":"update","delivered":0"#), "\(answer)")
            let pending = try await push.store.listTokens(workspace: push.workspace)
            #expect(pending.count == 1 && pending[0].contains("pending=1"), "\(pending)")
        }
        await site.shutdown()
    }

    /// Refreshes have their own, smaller bucket per device; a refused one polls nothing.
    @Test func refreshIsRateLimitedPerDevice() async throws {
        let push = PushFixture("serve-refresh-429")
        let site = try await BeerQueueSite(push, page: BeerQueueSite.page(["Founders KBS"]))
        let config = try site.writeConfig(push)
        let limits = ServeLimits(refreshBurst: 1, refreshesPerSecond: 1.0 / 60)
        try await ServeFixture.with("serve-refresh-429", limits: limits, push: push, configPath: config) { serve in
            let alice = try await serve.addDevice("alice")
            let bob = try await serve.addDevice("bob")
            #expect(try await serve.send(.POST, "/v1/beer-queue/refresh", secret: alice).status == 200)
            let limited = try await serve.send(.POST, "/v1/beer-queue/refresh", secret: alice)
            #expect(limited.status == 429)
            #expect(limited.headers.first(name: "retry-after") == "60")
            #expect(site.site.requests.count == 1, "a refused refresh polled the site")
            // Other routes still answer for her, and bob has his own bucket.
            #expect(try await serve.send(.GET, "/v1/activities/beer-queue", secret: alice).status == 200)
            #expect(try await serve.send(.POST, "/v1/beer-queue/refresh", secret: bob).status == 200)
            #expect(try await serve.send(.GET, "/v1/beer-queue/refresh", secret: bob).status == 405)
            serve.clock.advance(60)
            #expect(try await serve.send(.POST, "/v1/beer-queue/refresh", secret: alice).status == 200)
            #expect(site.site.requests.count == 3)
        }
        await site.shutdown()
    }
}
