import Foundation
import ShelflineCore
import ShelflinePush
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 36, item 8: who may call `serve` is decided by a file only its owner can write, and a
/// token belongs to the device that registered it, not to whoever has that device's name now.
@Suite struct DeviceTrustTests {
    /// `devices.json` that others may write, or read, or that another user owns, is refused (78)
    /// by `devices` and by `serve` before it listens, naming the file.
    @Test(.bug(id: 36), arguments: [0o666, 0o620, 0o604])
    func aDevicesFileOthersMayWriteOrReadIsRefusedWith78(mode: Int) async throws {
        let fixture = PushFixture("devices-mode")
        let commands = PushCommandTests()
        #expect(try await commands.push(fixture, ["devices", "add", "phone"]).status == 0)
        let path = fixture.store.devicesPath
        chmod(path, mode_t(mode))
        for arguments in [["devices", "list"], ["devices", "add", "other"], ["serve", "--listen", "127.0.0.1:0"]] {
            let result = try await commands.push(fixture, arguments)
            #expect(result.status == 78, "\(arguments): \(result)")
            #expect(result.stderr.contains(path) && result.stderr.contains("chmod 600"), "\(arguments): \(result)")
            #expect(!result.stdout.contains("serving on"), "\(result)")
        }
    }

    @Test(.bug(id: 36)) func aDevicesFileAnotherUserOwnsIsRefusedWith78() async throws {
        let fixture = PushFixture("devices-owner")
        let commands = PushCommandTests()
        #expect(try await commands.push(fixture, ["devices", "add", "phone"]).status == 0)
        let path = fixture.store.devicesPath
        // Only root can give a file away; elsewhere there is nothing to try.
        guard geteuid() == 0 else { return }
        try #require(chown(path, 54_321, 54_321) == 0)
        let result = try await commands.push(fixture, ["devices", "list"])
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("owned by uid 54321"), "\(result)")
    }

    /// `devices remove bob` then `devices add bob`: the new bob's secret cannot touch the old
    /// bob's tokens, neither those registered now nor those recorded by name only (before ids).
    @Test(.bug(id: 36)) func aDeviceNameAddedAgainDoesNotOwnTheTokensOfTheOneRemoved() async throws {
        try await ServeFixture.with("devices-reused-name") { serve in
            let old = try await serve.addDevice("bob")
            let token = PushFixture.token(0xb0)
            #expect(try await serve.put(token, secret: old) == 201)
            // A token registered through serve before ids existed: by name only.
            let legacy = PushFixture.token(0xb1)
            var registry = try serve.push.store.readRegistry()
            registry.tokens.append(
                Registration(
                    token: try DeviceToken(legacy), activity: .import, kind: .update,
                    registeredAt: Int(serve.clock.now.timeIntervalSince1970), device: "bob"))
            try serve.push.store.write(registry)

            try await serve.push.store.removeDevice("bob")
            serve.clock.advance(60)
            let new = try await serve.addDevice("bob")
            for owned in [token, legacy] {
                #expect(try await serve.send(.DELETE, "/v1/tokens/\(owned)", secret: new).status == 403)
                #expect(try await serve.put(owned, secret: new, activity: "import") == 403)
            }
            #expect(try serve.registered.count == 2, "both tokens kept")
            // The new bob owns what it registers.
            let mine = PushFixture.token(0xb2)
            #expect(try await serve.put(mine, secret: new) == 201)
            #expect(try await serve.send(.DELETE, "/v1/tokens/\(mine)", secret: new).status == 200)
        }
    }
}
