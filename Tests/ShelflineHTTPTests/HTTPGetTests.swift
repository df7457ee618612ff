import Foundation
import ShelflineHTTP
import TestSupport
import Testing

/// The one HTTP GET against real servers on loopback: the size limit while the body streams in,
/// the redirect rule, and how a failure is told apart (what lookup's breaker and the beer-queue
/// messages rely on).
@Suite struct HTTPGetTests {
    static func get(
        _ url: String, limit: Int = 1 << 20, timeout: Double = 30,
        redirects: HTTPGet.RedirectRule = .none
    ) async -> Result<HTTPGet.Answer, HTTPGet.Failure> {
        await HTTPGet(
            url: URL(string: url)!, headers: [("Accept", "text/plain")], timeoutSeconds: timeout, limit: limit,
            redirects: redirects
        ).run()
    }

    @Test func answerWithinTheLimitIsReadWhole() async throws {
        let server = try await LoopbackHTTPServer { _ in .text(String(repeating: "x", count: 1000)) }
        defer { Task { try? await server.shutdown() } }
        let answer = try await Self.get(server.baseURL + "/page", limit: 1000).get()
        #expect(answer.status == 200 && answer.body.count == 1000)
        #expect(server.requests.first?.headers["accept"] == "text/plain")
    }

    /// One byte over: refused from its `Content-Length` (an answer without one is counted as it
    /// streams in: LookupHTTPLimitsEndToEndTests' endless answer, BeerQueueEndToEndTests' huge page).
    @Test func answerPastTheLimitIsTooLarge() async throws {
        let server = try await LoopbackHTTPServer { _ in .text(String(repeating: "y", count: 1001)) }
        defer { Task { try? await server.shutdown() } }
        #expect(await Self.get(server.baseURL + "/big", limit: 1000).failure == .tooLarge)
    }

    @Test func redirectIsFollowedOnlyWhereTheRuleAllows() async throws {
        let server = try await LoopbackHTTPServer { request in
            request.path == "/from" ? .redirect(to: "/to") : .text("arrived")
        }
        defer { Task { try? await server.shutdown() } }
        let followed = try await Self.get(server.baseURL + "/from", redirects: .http(maximum: 1)).get()
        #expect(followed.status == 200 && String(decoding: followed.body, as: UTF8.self) == "arrived")
        let refused = await Self.get(server.baseURL + "/from", redirects: HTTPGet.RedirectRule(maximum: 5) { _ in false })
        #expect(refused.failure == .redirectRefused(to: URL(string: server.baseURL + "/to")))
        let unfollowed = try await Self.get(server.baseURL + "/from").get()
        #expect(unfollowed.status == 302 && unfollowed.location == "/to")
        #expect(server.requests.map(\.path) == ["/from", "/to", "/from", "/from"])
    }

    @Test func redirectLoopEndsAfterTheMaximum() async throws {
        let server = try await LoopbackHTTPServer { _ in .redirect(to: "/again") }
        defer { Task { try? await server.shutdown() } }
        #expect(await Self.get(server.baseURL + "/again", redirects: .http(maximum: 3)).failure == .tooManyRedirects)
        #expect(server.requests.count == 4)
    }

    /// Nothing reached a server: told apart from every failure of a server that answered.
    @Test func refusedConnectionIsUnreachable() async throws {
        let closed = try RefusingLoopbackPort()
        defer { withExtendedLifetime(closed) {} }
        #expect(await Self.get(closed.baseURL + "/x").failure == .unreachable(reason: "connection refused"))
    }

    @Test func nameThatDoesNotResolveIsNameResolution() async {
        // The reserved `.invalid` domain never resolves, with or without a network.
        #expect(await Self.get("http://shelfline-http-test.invalid/x").failure == .nameResolution)
    }

    @Test func slowAnswerTimesOut() async throws {
        let server = try await LoopbackHTTPServer(immediate: { _ in .text("late", delay: .seconds(60)) })
        defer { Task { try? await server.shutdown() } }
        #expect(await Self.get(server.baseURL + "/slow", timeout: 0.3).failure == .timedOut)
    }

    @Test func cancelledTaskStopsTheRequest() async throws {
        let server = try await LoopbackHTTPServer(immediate: { _ in .text("late", delay: .seconds(60)) })
        defer { Task { try? await server.shutdown() } }
        let request = Task { await Self.get(server.baseURL + "/slow") }
        try await server.waitForRequests(1)
        request.cancel()
        #expect(await request.value.failure == .cancelled)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}
