import APNsTestServer
import Foundation
import ShelflineActivity
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflinePush

/// `PushSender` in process against the loopback APNs (HTTP/2, TLS): every answer in issue 11's table.
@Suite struct PushSenderTests {
    @Test(.bug(id: 11)) func deliversEachSnapshotInOrderAndRecordsCursor() async throws {
        let fixture = PushFixture("push-200")
        let token = PushFixture.token(1)
        try fixture.emitBeerQueue(.start, beers: ["Pliny"], at: 1_760_000_000)
        try await fixture.register(token)  // a new update token gets the latest fitting snapshot only
        let server = try await fixture.server()
        defer { Task { try? await server.shutdown() } }

        var (report, error) = try await fixture.send(server)
        #expect(error == nil)
        #expect(server.received.isEmpty, "a start is not for an update token")
        #expect(report.pushes == 0)

        try fixture.emitBeerQueue(.update, beers: ["Pliny", "Heady Topper"], at: 1_760_000_060)
        try fixture.emitBeerQueue(.update, beers: ["Pliny", "Heady Topper"], at: 1_760_000_120)
        try fixture.emitBeerQueue(.end, beers: [], at: 1_760_000_180)
        let lines = LineLog()
        (report, error) = try await fixture.send(server, lines: lines)
        #expect(error == nil)
        let received = server.received
        #expect(received.allSatisfy { $0.problems.isEmpty }, "\(received.map(\.problems))")
        #expect(received.map(\.event) == ["update", "update", "end"])
        #expect(received.map(\.timestamp) == [1_760_000_060, 1_760_000_120, 1_760_000_180])
        #expect(received.allSatisfy { $0.token == token && $0.contentStateType == "BeerQueueAttributes" })
        // A changed beer list and the end are urgent; the unchanged update is not.
        #expect(received.map { $0.headers["apns-priority"] } == ["10", "5", "10"])
        #expect(received[0].headers["apns-expiration"] == "\(1_760_000_060 + 900)")
        #expect(report.delivered == 3 && report.pushes == 3 && report.outcomesAddUp)
        #expect(lines.all.count == 3)
        #expect(lines.all[0].hasPrefix("push=beer-queue token=…\(token.suffix(6)) event=update status=200"))
        #expect(lines.all[0].contains("apns_id=\(received[0].headers["apns-id"]!)"))

        // A rerun has nothing left to send.
        (report, error) = try await fixture.send(server)
        #expect(error == nil && report.pushes == 0)
        #expect(server.received.count == 3)
        let outbox = try fixture.store.readOutbox()
        #expect(outbox.cursors[token]?.last.timestamp == 1_760_000_180)
    }

    @Test(.bug(id: 11)) func startTokensGetStartUpdateTokensGetUpdateAndEnd() async throws {
        let fixture = PushFixture("push-kinds")
        try fixture.emitImport(.update, processed: 1, at: 1_760_000_000)
        let start = PushFixture.token(2, bytes: 80), update = PushFixture.token(3)
        try await fixture.register(start, .import, kind: .start)
        try await fixture.register(update, .import, kind: .update)
        let server = try await fixture.server()
        defer { Task { try? await server.shutdown() } }
        _ = try await fixture.send(server)
        #expect(server.received.map(\.token) == [update])

        try fixture.emitImport(.start, processed: 0, at: 1_760_000_100)
        try fixture.emitImport(.update, processed: 5, at: 1_760_000_110)
        try fixture.emitImport(.end, processed: 10, at: 1_760_000_120)
        let (report, error) = try await fixture.send(server)
        #expect(error == nil)
        let later = server.received.dropFirst()
        #expect(later.allSatisfy { $0.problems.isEmpty }, "\(later.map(\.problems))")
        #expect(later.filter { $0.token == start }.map(\.event) == ["start"])
        // An import's update token gets its newest state only, never the progress before it (issue 36).
        #expect(later.filter { $0.token == update }.map(\.event) == ["end"])
        #expect(later.allSatisfy { $0.contentStateType == "CSVImportActivityAttributes" })
        #expect(later.first { $0.token == start }?.headers["apns-priority"] == "10")
        #expect(later.first { $0.token == update }?.headers["apns-priority"] == "10")
        #expect(report.delivered == 2 && report.outcomesAddUp)
    }

    @Test(.bug(id: 11), arguments: [(400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"), (410, "Unregistered")])
    func goneTokenIsDroppedAndLogged(status: Int, reason: String) async throws {
        let fixture = PushFixture("push-gone")
        let gone = PushFixture.token(4), kept = PushFixture.token(5)
        try await fixture.register(gone)
        try await fixture.register(kept)
        try fixture.emitBeerQueue(.update, beers: ["A"], at: 1_760_000_000)
        try fixture.emitBeerQueue(.update, beers: ["A", "B"], at: 1_760_000_010)
        let server = try await fixture.server { $0.token == gone ? APNsAnswer(status: status, reason: reason) : .ok }
        defer { Task { try? await server.shutdown() } }
        let lines = LineLog()
        let (report, error) = try await fixture.send(server, lines: lines)
        #expect(error == nil)
        #expect(server.received.filter { $0.token == gone }.count == 1, "never retried")
        #expect(report.dropped == 1 && report.delivered == 1 && report.outcomesAddUp)
        #expect(server.connections == 1, "concurrent pushes share one HTTP/2 connection")
        #expect(report.droppedTokens == ["…" + gone.suffix(6)])
        #expect(try fixture.store.readRegistry().tokens.map(\.token.hex) == [kept])
        #expect(try fixture.store.readOutbox().cursors[gone] == nil)
        #expect(
            lines.all.contains {
                $0.contains("token=…\(gone.suffix(6))") && $0.contains("status=\(status)") && $0.contains("reason=\(reason)")
            })
    }

    @Test(.bug(id: 11), arguments: ["ExpiredProviderToken", "InvalidProviderToken"])
    func providerTokenRefusedOnceIsRenewedAndRetried(reason: String) async throws {
        let fixture = PushFixture("push-403-once")
        try await fixture.register(PushFixture.token(6))
        try fixture.emitBeerQueue(.update, beers: ["A"], at: 1_760_000_000)
        let first = LineLog()
        let server = try await fixture.server { push in
            // Refuse the first provider token seen, accept any other.
            if first.all.isEmpty { first.append(push.jwt) }
            return push.jwt == first.all[0] ? APNsAnswer(status: 403, reason: reason) : .ok
        }
        defer { Task { try? await server.shutdown() } }
        let (report, error) = try await fixture.send(server)
        #expect(error == nil, "\(String(describing: error))")
        #expect(server.received.count == 2)
        #expect(Set(server.received.map(\.jwt)).count == 2, "retried with a new provider token")
        #expect(report.delivered == 1 && report.providerTokenRenewals == 1 && report.outcomesAddUp)
    }

    @Test(.bug(id: 11)) func providerTokenRefusedTwiceExits78NamingKeyId() async throws {
        let fixture = PushFixture("push-403")
        try await fixture.register(PushFixture.token(7))
        try await fixture.register(PushFixture.token(8))
        try fixture.emitBeerQueue(.update, beers: ["A"], at: 1_760_000_000)
        let server = try await fixture.server { _ in APNsAnswer(status: 403, reason: "InvalidProviderToken") }
        defer { Task { try? await server.shutdown() } }
        let (report, error) = try await fixture.send(server)
        let pushError = try #require(error as? PushError)
        #expect(pushError.exitStatus == .config)
        #expect(pushError.description.contains(PushFixture.keyId))
        #expect(report.delivered == 0 && report.deferred == 2 && report.outcomesAddUp)
        #expect(server.received.count <= 4, "one retry per push at most")
        #expect(try fixture.store.readOutbox().cursors.isEmpty, "nothing marked as sent")
    }

    @Test(.bug(id: 11)) func payloadTooLargeIsLoggedAsBugNeverRetried() async throws {
        let fixture = PushFixture("push-413")
        try await fixture.register(PushFixture.token(9))
        try fixture.emitBeerQueue(.update, beers: ["A"], at: 1_760_000_000)
        let server = try await fixture.server { _ in APNsAnswer(status: 413, reason: "PayloadTooLarge") }
        defer { Task { try? await server.shutdown() } }
        let lines = LineLog()
        var (report, error) = try await fixture.send(server, lines: lines)
        #expect((error as? PushError)?.exitStatus == .dataError)
        #expect(report.rejected == 1 && report.outcomesAddUp)
        #expect(lines.all.contains { $0.contains("status=413") && $0.contains("outcome=rejected-bug") })
        (report, error) = try await fixture.send(server)
        #expect(error == nil && report.pushes == 0)
        #expect(server.received.count == 1, "never retried, not even by the next run")
    }

    @Test(.bug(id: 11), arguments: [429, 500, 503])
    func busyIsRetriedWithBackoffWithinBudget(status: Int) async throws {
        let fixture = PushFixture("push-busy")
        try await fixture.register(PushFixture.token(10))
        try fixture.emitBeerQueue(.update, beers: ["A"], at: 1_760_000_000)
        let count = LineLog()
        let server = try await fixture.server { _ in
            count.append("x")
            return count.all.count <= 2
                ? APNsAnswer(status: status, reason: status == 429 ? "TooManyRequests" : "InternalServerError") : .ok
        }
        defer { Task { try? await server.shutdown() } }
        let clock = ManualClock()
        let (report, error) = try await fixture.send(server, clock: clock)
        #expect(error == nil)
        #expect(server.received.count == 3)
        #expect(clock.sleeps == [1, 2], "exponential backoff")
        #expect(report.delivered == 1 && report.retries == 2 && report.outcomesAddUp)
    }

    @Test(.bug(id: 11), arguments: [429, 503])
    func busyBeyondBudgetIsLeftForNextRun(status: Int) async throws {
        let fixture = PushFixture("push-busy-budget")
        let token = PushFixture.token(11)
        try await fixture.register(token)
        try fixture.emitBeerQueue(.update, beers: ["A"], at: 1_760_000_000)
        try fixture.emitBeerQueue(.update, beers: ["A", "B"], at: 1_760_000_010)
        let server = try await fixture.server { _ in APNsAnswer(status: status) }
        defer { Task { try? await server.shutdown() } }
        let clock = ManualClock()
        let (report, error) = try await fixture.send(server, clock: clock, waitBudget: 10)
        #expect((error as? PushError)?.exitStatus == .tryLater)
        #expect(clock.sleeps.reduce(0, +) <= 10)
        #expect(clock.sleeps == [1, 2, 4])
        #expect(report.deferred == 1 && report.delivered == 0 && report.outcomesAddUp)
        #expect(try fixture.store.readOutbox().cursors[token] == nil, "nothing marked as sent")
    }

    @Test(.bug(id: 11)) func noNetworkExits75NothingMarkedSent() async throws {
        let fixture = PushFixture("push-offline")
        let token = PushFixture.token(12)
        try await fixture.register(token)
        try fixture.emitBeerQueue(.update, beers: ["A"], at: 1_760_000_000)
        // A port that was just listening and is now closed: connection refused.
        let server = try await fixture.server()
        let host = server.host
        try await server.shutdown()
        let settings = try fixture.settings(host: host, timeout: 2)
        let sender = PushSender(
            workspace: fixture.workspace, settings: settings, clock: ManualClock().pushClock, log: Logfmt(sink: { _ in }))
        let transport = try APNsTransport(settings: settings)
        let providerToken = ProviderToken(key: fixture.key, keyId: PushFixture.keyId, teamId: PushFixture.teamId, now: { Date() })
        await #expect(throws: PushError.self) { try await sender.send(transport: transport, providerToken: providerToken) }
        await transport.shutdown()
        let report = try readJSONFile(PushReport.self, from: fixture.store.reportPath)
        #expect(report.deferred == 1 && report.answers["network"] == 1 && report.outcomesAddUp)
        #expect(try fixture.store.readOutbox().cursors[token] == nil)
    }

    @Test(.bug(id: 11)) func providerTokenReusedTwentyMinutesRenewedBeforeSixty() throws {
        let clock = ManualClock()
        let provider = ProviderToken(key: .generate(), keyId: PushFixture.keyId, teamId: PushFixture.teamId, now: { clock.now })
        let first = try provider.jwt()
        clock.advance(20 * 60)
        #expect(try provider.jwt() == first)
        clock.advance(29 * 60)
        #expect(try provider.jwt() == first, "49 minutes old: still reused")
        clock.advance(60)
        let second = try provider.jwt()
        #expect(second != first, "50 minutes old: renewed before Apple's 60")
        let claims = try #require(Base64URL.decode(second.split(separator: ".")[1]))
        let object = try #require(try JSONSerialization.jsonObject(with: claims) as? [String: Any])
        #expect(object["iat"] as? Int == Int(clock.now.timeIntervalSince1970))
        #expect(object["iss"] as? String == PushFixture.teamId)
    }
    @Test(.bug(id: 11)) func outboxJournalReplaysCompleteLinesIgnoresATornTailAndNamesACorruptLine() throws {
        let fixture = PushFixture("push-journal")
        let store = fixture.store
        let cursor = { (timestamp: Int) in
            Cursor(activity: .beerQueue, last: SnapshotID(timestamp: timestamp, digest: "d\(timestamp)"), deliveredAt: timestamp)
        }
        try store.write(Outbox(cursors: ["aa": cursor(1), "bb": cursor(2)]))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func line(_ token: String, _ timestamp: Int) throws -> String {
            let entry = try encoder.encode(["token": token])  // {"token":"…"}
            let value = try encoder.encode(cursor(timestamp))
            return String(decoding: entry.dropLast(), as: UTF8.self) + ",\"cursor\":" + String(decoding: value, as: UTF8.self)
                + "}\n"
        }
        // Two groups appended, then a third cut short by a crash (no newline: never acknowledged).
        let journal = try line("aa", 10) + line("cc", 11) + line("aa", 12) + String(try line("bb", 13).dropLast(9))
        FileManager.default.createFile(atPath: store.journalPath, contents: Data(journal.utf8))
        let outbox = try store.readOutbox()
        #expect(outbox.cursors.mapValues(\.last.timestamp) == ["aa": 12, "bb": 2, "cc": 11])

        // Writing the outbox compacts: the journal is gone and nothing is lost.
        try store.write(outbox)
        #expect(!FileManager.default.fileExists(atPath: store.journalPath))
        #expect(try store.readOutbox() == outbox)

        // A complete line that is not an entry is named with its line, never skipped silently.
        let corrupt = try line("aa", 20) + "{\"token\":\"bb\"}\n" + line("cc", 21)
        FileManager.default.createFile(atPath: store.journalPath, contents: Data(corrupt.utf8))
        #expect {
            try store.readOutbox()
        } throws: { error in
            "\(error)".contains("outbox.journal:2:")
        }
    }
}

extension PushSenderTests {
    /// A delivery that cannot be recorded stops that token's chain: its remaining pushes are
    /// counted deferred (not lost, not sent), so the report still adds up.
    @Test func aJournalAppendThatFailsLeavesTheTokensRemainingPushesDeferred() async throws {
        let fixture = PushFixture("push-journal-fails")
        try fixture.emitBeerQueue(.update, beers: ["A"], at: 1_760_000_000)
        try await fixture.register(PushFixture.token(9))
        let sender = PushSender(
            workspace: fixture.workspace, settings: try fixture.settings(host: "https://127.0.0.1:9"),
            clock: ManualClock().pushClock)
        let providerToken = ProviderToken(
            key: fixture.key, keyId: PushFixture.keyId, teamId: PushFixture.teamId, now: { Date() })
        try await sender.send(transport: JournalBreakingTransport(journal: nil), providerToken: providerToken)
        for n in 1...3 { try fixture.emitBeerQueue(.update, beers: ["A", "\(n)"], at: 1_760_000_000 + n) }

        let transport = JournalBreakingTransport(journal: sender.store.journalPath)
        await #expect(throws: FileError.self) { try await sender.send(transport: transport, providerToken: providerToken) }
        let report = try readJSONFile(PushReport.self, from: sender.store.reportPath)
        #expect(report.pushes == 3 && report.delivered == 1 && report.deferred == 2 && report.outcomesAddUp, "\(report)")
        #expect(transport.sent == 1, "nothing more goes to a token whose last delivery is not on disk")
    }
}

/// Answers 200; on its first push it leaves a dangling link at `journal`, so appending to the
/// outbox journal fails from then on.
final class JournalBreakingTransport: PushTransport, @unchecked Sendable {
    private let journal: String?
    private let lock = NSLock()
    private var count = 0

    init(journal: String?) { self.journal = journal }

    var sent: Int { lock.withLock { count } }

    func send(_ request: PushRequest, providerToken: String) async throws -> PushAnswer {
        let first = lock.withLock {
            count += 1
            return count == 1
        }
        if first, let journal { symlink("/nonexistent/outbox.journal", journal) }
        return PushAnswer(status: 200, apnsId: request.apnsId)
    }

    func shutdown() async {}
}
