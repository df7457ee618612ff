import APNsTestServer
import Foundation
import ShelflineCore
import ShelflinePush
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The provider token is kept in the workspace and reused by every process until it is 50
/// minutes old: Apple answers 429 `TooManyProviderTokenUpdates` to one renewed more often than
/// every 20 minutes.
@Suite struct ProviderTokenTests {
    /// Two instances stand for two processes: they share only the file.
    func tokens(
        _ fixture: PushFixture, clock: ManualClock, keyId: String = PushFixture.keyId, teamId: String = PushFixture.teamId,
        key: P256SigningKey? = nil
    ) -> ProviderToken {
        ProviderToken(
            key: key ?? fixture.key, keyId: keyId, teamId: teamId, now: { clock.now },
            storePath: fixture.store.providerTokenPath)
    }

    static func issuedAt(_ jwt: String) throws -> Int {
        let claims = try #require(Base64URL.decode(jwt.split(separator: ".")[1]))
        let object = try #require(try JSONSerialization.jsonObject(with: claims) as? [String: Any])
        return try #require(object["iat"] as? Int)
    }

    @Test(.bug(id: 23)) func aTokenIsSharedAcrossProcessesUntilItIsFiftyMinutesOld() throws {
        let fixture = PushFixture("provider-token-shared")
        let clock = ManualClock()
        let first = try tokens(fixture, clock: clock).jwt()
        var info = stat()
        #expect(stat(fixture.store.providerTokenPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600, "a bearer credential: owner only")
        #expect(try Self.issuedAt(first) == Int(clock.now.timeIntervalSince1970))

        let holder = tokens(fixture, clock: clock)
        clock.advance(49 * 60 + 59)
        #expect(try tokens(fixture, clock: clock).jwt() == first, "a later process reuses it")
        #expect(try holder.jwt() == first)

        clock.advance(1)
        let renewed = try tokens(fixture, clock: clock).jwt()
        #expect(renewed != first, "renewed at 50 minutes")
        #expect(try Self.issuedAt(renewed) == Int(clock.now.timeIntervalSince1970))
        #expect(
            try holder.jwt() == renewed, "a process holding the old one picks up the stored renewal instead of signing its own")
    }

    @Test(.bug(id: 23)) func anotherKeyIdTeamOrKeyNeverReusesTheStoredToken() throws {
        let fixture = PushFixture("provider-token-key")
        let clock = ManualClock()
        let original = try tokens(fixture, clock: clock).jwt()
        let otherId = try tokens(fixture, clock: clock, keyId: "ZZZ999YYYY").jwt()
        #expect(otherId != original)
        let otherTeam = try tokens(fixture, clock: clock, teamId: "OTHERTEAM1").jwt()
        #expect(otherTeam != otherId && otherTeam != original)
        let otherKey = try tokens(fixture, clock: clock, key: P256SigningKey.generate()).jwt()
        #expect(![original, otherId, otherTeam].contains(otherKey), "same key id and team, another .p8")
        #expect(try tokens(fixture, clock: clock, key: P256SigningKey.generate()).jwt() != otherKey)
    }

    @Test(.bug(id: 23)) func aRejectedTokenIsRenewedOnceForEveryProcess() throws {
        let fixture = PushFixture("provider-token-renew")
        let clock = ManualClock()
        let a = tokens(fixture, clock: clock), b = tokens(fixture, clock: clock)
        let first = try a.jwt()
        #expect(try b.jwt() == first)
        clock.advance(60)
        let renewed = try b.jwt(replacing: first)
        #expect(renewed != first)
        #expect(try a.jwt(replacing: first) == renewed, "the other process takes the stored renewal, it does not sign a third")
        #expect(try tokens(fixture, clock: clock).jwt() == renewed)
    }

    @Test(.bug(id: 23)) func aDamagedStoredTokenIsReplaced() throws {
        let fixture = PushFixture("provider-token-damaged")
        let clock = ManualClock()
        try Workspace.makeDirectory(fixture.store.directory)
        try AtomicFile.write("{not json", to: fixture.store.providerTokenPath, permissions: 0o600)
        let jwt = try tokens(fixture, clock: clock).jwt()
        #expect(try Self.issuedAt(jwt) == Int(clock.now.timeIntervalSince1970))
        #expect(try tokens(fixture, clock: clock).jwt() == jwt)
    }

    /// APNs' table: only `ExpiredProviderToken` and `InvalidProviderToken` are cured by a new token.
    @Test(.bug(id: 23)) func aRefusalANewTokenCannotCureStopsWithoutRenewing() async throws {
        let fixture = PushFixture("provider-token-topic")
        try await fixture.register(PushFixture.token(9))
        try fixture.emitBeerQueue(.update, beers: ["A"], at: 1_760_000_000)
        let server = try await fixture.server { _ in APNsAnswer(status: 403, reason: "TopicDisallowed") }
        defer { Task { try? await server.shutdown() } }
        let (report, error) = try await fixture.send(server)
        let pushError = try #require(error as? PushError)
        #expect(pushError.exitStatus == .config && pushError.description.contains("TopicDisallowed"), "\(pushError)")
        #expect(report.providerTokenRenewals == 0 && server.received.count == 1, "\(report)")
    }

    /// Three `shelfline-push send` processes a cron interval apart (seconds here) against an APNs
    /// that, like Apple's, answers 429 `TooManyProviderTokenUpdates` to a key's token renewed within
    /// 20 minutes: all three deliver with the one token.
    @Test(.bug(id: 23)) func sendsFromCronReuseOneProviderToken() async throws {
        let fixture = PushFixture("provider-token-cron")
        try await fixture.register(PushFixture.token(3))
        let seen = LineLog()
        let server = try await fixture.server { push in
            if seen.all.isEmpty { seen.append(push.jwt) }
            return push.jwt == seen.all[0] ? .ok : APNsAnswer(status: 429, reason: "TooManyProviderTokenUpdates")
        }
        defer { Task { try? await server.shutdown() } }
        let config = try fixture.writeConfig(host: server.host, waitBudget: 0)
        for round in 0..<3 {
            try fixture.emitBeerQueue(.update, beers: (0...round).map { "Beer \($0)" }, at: 1_760_000_000 + round)
            let result = try await PushCommandTests.run(
                "shelfline-push", ["send", "--workspace", fixture.workspace.root, "--config", config], in: fixture.temp.path)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains("1 delivered"), "\(result)")
        }
        #expect(server.received.count >= 3)
        #expect(Set(server.received.map(\.jwt)).count == 1, "one provider token for the three processes")
    }
}
