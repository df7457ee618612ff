import APNsTestServer
import Foundation
import ShelflineActivity
import ShelflineCore
import ShelflinePush
import TestSupport
import TestTraits
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `shelfline-push` as a process: exit statuses, messages, files, and a crash between send and record.
@Suite(.offCooperativePool) struct PushCommandTests {
    func push(_ fixture: PushFixture, _ arguments: [String], config: String? = nil) async throws -> ProcessResult {
        var arguments = arguments + ["--workspace", fixture.workspace.root]
        if let config { arguments += ["--config", config] }
        return try await Self.run("shelfline-push", arguments, in: fixture.temp.path)
    }

    /// `ExecutableRunner.run` on a Dispatch thread: waiting for the child must not hold one of the
    /// few cooperative threads the loopback APNs needs to answer that same child.
    static func run(_ name: String, _ arguments: [String], in directory: String) async throws -> ProcessResult {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.blockingWork().async {
                continuation.resume(with: Result { try ExecutableRunner.run(name, arguments, in: directory) })
            }
        }
    }

    @Test(
        .bug(id: 11),
        arguments: [
            "xyz123", "ab", String(repeating: "a", count: 63), String(repeating: "0", count: 512),
            "<" + String(repeating: "ab", count: 32) + ">",
        ])
    func malformedTokenExits64(token: String) async throws {
        let fixture = PushFixture("push-bad-token")
        let result = try await push(fixture, ["register", "--activity", "beer-queue", "--token", token])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.hasPrefix("shelfline-push: error: token '"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: fixture.store.registryPath))
    }

    @Test(.bug(id: 11)) func registerListAndUnregisterAToken() async throws {
        let fixture = PushFixture("push-register")
        let token = PushFixture.token(0xab, bytes: 40).uppercased()
        var result = try await push(fixture, ["register", "--activity", "import", "--token", token, "--kind", "start"])
        #expect(result.status == 0, "\(result)")
        result = try await push(fixture, ["list"])
        #expect(result.stdout.contains("\(token.lowercased()) import start"), "\(result)")
        #expect(result.stdout.contains("delivered=never pending=0"), "\(result)")
        result = try await push(fixture, ["unregister", "--token", token])
        #expect(result.status == 0 && result.stdout.contains("unregistered"), "\(result)")
        #expect(try fixture.store.readRegistry().tokens.isEmpty)
    }

    @Test(.bug(id: 11)) func keyFileWrongModeExits78WithChmodRemedy() async throws {
        let fixture = PushFixture("push-key-mode")
        try await fixture.register(PushFixture.token(1))
        try fixture.emitBeerQueue(.update, beers: ["A"], at: 1_760_000_000)
        let server = try await fixture.server()
        defer { Task { try? await server.shutdown() } }
        let config = try fixture.writeConfig(host: server.host)
        chmod(fixture.keyFile, 0o644)
        let result = try await push(fixture, ["send"], config: config)
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("chmod 600 \(fixture.keyFile)"), "\(result)")
        #expect(!result.stderr.contains("PRIVATE KEY") && !result.stdout.contains("PRIVATE KEY"))
        #expect(server.received.isEmpty)
    }

    @Test(.bug(id: 11), arguments: ["p384", "sec1", "garbage"])
    func keyNotP256PKCS8Exits78(kind: String) async throws {
        let fixture = PushFixture("push-key-kind")
        let pem =
            switch kind {
            case "p384": P256SigningKey.generate(curve: "P-384").pemRepresentation
            case "sec1": "-----BEGIN EC PRIVATE KEY-----\nbm90IGEga2V5\n-----END EC PRIVATE KEY-----\n"
            default: "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n"
            }
        _ = fixture.temp.write("AuthKey_\(PushFixture.keyId).p8", pem)
        chmod(fixture.keyFile, 0o600)
        let config = try fixture.writeConfig(host: "https://127.0.0.1:9")
        let result = try await push(fixture, ["send"], config: config)
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("\(fixture.keyFile): not an APNs signing key"), "\(result)")
        #expect(!result.stderr.contains("bm90IGEga2V5"), "key content is never logged")
    }

    @Test(.bug(id: 11), arguments: ["corrupt", "newer", "torn-history"])
    func badStateFileExits65AndSendsNothing(kind: String) async throws {
        let fixture = PushFixture("push-bad-state")
        try await fixture.register(PushFixture.token(2))
        try fixture.emitBeerQueue(.update, beers: ["A"], at: 1_760_000_000)
        let server = try await fixture.server()
        defer { Task { try? await server.shutdown() } }
        let config = try fixture.writeConfig(host: server.host)
        let path: String
        switch kind {
        case "corrupt":
            path = fixture.store.registryPath
            let bytes = try #require(FileManager.default.contents(atPath: path))
            try Data(bytes.prefix(bytes.count / 2)).write(to: URL(fileURLWithPath: path))
        case "newer":
            path = fixture.store.registryPath
            try Data(#"{"version": 2, "tokens": [], "devices": {}}"#.utf8).write(to: URL(fileURLWithPath: path))
        default:
            path = ActivityStore(workspace: fixture.workspace, name: "beer-queue").historyPath
            let handle = try #require(FileHandle(forWritingAtPath: path))
            handle.seekToEndOfFile()
            handle.write(Data(#"{"apns":{"aps":{"event":"upd"#.utf8))
            try handle.close()
        }
        let before = FileManager.default.contents(atPath: path)
        let result = try await push(fixture, ["send"], config: config)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains(path), "\(result)")
        if kind == "newer" { #expect(result.stderr.contains("newer")) }
        if kind == "torn-history" {
            #expect(result.stderr.contains("\(path):2: ") && result.stderr.contains("torn"), "\(result)")
        }
        #expect(server.received.isEmpty, "nothing sent")
        #expect(FileManager.default.contents(atPath: path) == before, "left as it was")
        // register refuses to overwrite a registry it cannot read.
        if kind != "torn-history" {
            let register = try await push(fixture, ["register", "--activity", "beer-queue", "--token", PushFixture.token(3)])
            #expect(register.status == 65, "\(register)")
            #expect(FileManager.default.contents(atPath: path) == before)
        }
    }

    @Test(.bug(id: 11)) func killedBetweenSendAndRecordResendsOnlyTheInFlightPush() async throws {
        let fixture = PushFixture("push-kill")
        let token = PushFixture.token(4)
        try await fixture.register(token)
        try fixture.emitBeerQueue(.update, beers: ["A"], at: 1_760_000_000)
        let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
        let (releases, release) = AsyncStream.makeStream(of: Void.self)
        let holdAt = LineLog()  // holds the timestamp of the push to hold unanswered
        let server = try await fixture.server { push in
            // Only the first arrival of that push is held: its re-send must be answered.
            if push.timestamp.map(String.init) == holdAt.all.first, holdAt.all.count == 1 {
                holdAt.append("held")
                arrived.yield()
                for await _ in releases { break }
            }
            return .ok
        }
        defer { Task { try? await server.shutdown() } }
        let config = try fixture.writeConfig(host: server.host)
        var result = try await push(fixture, ["send"], config: config)
        #expect(result.status == 0, "\(result)")

        for (offset, beers) in [["A", "B"], ["A", "B", "C"], ["B", "C"]].enumerated() {
            try fixture.emitBeerQueue(.update, beers: beers, at: 1_760_000_100 + offset)
        }
        holdAt.append("\(1_760_000_101)")
        let process = ExecutableRunner.start(
            "shelfline-push", ["send", "--workspace", fixture.workspace.root, "--config", config])
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        for await _ in arrivals { break }
        kill(process.processIdentifier, SIGKILL)
        await withCheckedContinuation { continuation in
            DispatchQueue.blockingWork().async {
                process.waitUntilExit()
                continuation.resume()
            }
        }
        release.yield()
        #expect(process.terminationReason == .uncaughtSignal)
        // The delivery before the held push was journaled, not yet compacted into outbox.json.
        #expect(FileManager.default.fileExists(atPath: fixture.store.journalPath))
        #expect(try fixture.store.readOutbox().cursors[token]?.last.timestamp == 1_760_000_100)

        result = try await push(fixture, ["send"], config: config)
        #expect(result.status == 0, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: fixture.store.journalPath), "compacted into outbox.json")
        let timestamps = server.received.dropFirst().compactMap(\.timestamp)
        #expect(
            timestamps == [1_760_000_100, 1_760_000_101, 1_760_000_101, 1_760_000_102],
            "every snapshot delivered, only the one in flight twice")
        #expect(Set(server.received.dropFirst().map { $0.headers["apns-id"] }).count == 3, "a re-sent push keeps its apns-id")
    }

    @Test(.bug(id: 11)) func noNetworkExits75() async throws {
        let fixture = PushFixture("push-no-network")
        try await fixture.register(PushFixture.token(5))
        try fixture.emitBeerQueue(.update, beers: ["A"], at: 1_760_000_000)
        let server = try await fixture.server()
        let config = try fixture.writeConfig(host: server.host, timeout: 2)
        try await server.shutdown()
        let result = try await push(fixture, ["send"], config: config)
        #expect(result.status == 75, "\(result)")
        #expect(result.stderr.contains("status=network"), "\(result)")
        #expect(try fixture.store.readOutbox().cursors.isEmpty, "nothing marked as sent")
    }

    @Test(.bug(id: 11)) func dryRunPrintsRequestsSendsNothing() async throws {
        let fixture = PushFixture("push-dry")
        let token = PushFixture.token(6)
        try await fixture.register(token)
        try fixture.emitBeerQueue(.update, beers: ["Pliny the Elder"], at: 1_760_000_000)
        let server = try await fixture.server()
        defer { Task { try? await server.shutdown() } }
        let config = try fixture.writeConfig(host: server.host)
        let result = try await push(fixture, ["send", "--dry-run"], config: config)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("POST \(server.host)/3/device/…\(token.suffix(6))\n"), "\(result)")
        #expect(!result.stdout.contains(token), "token shortened")
        #expect(
            result.stdout.contains("apns-push-type: liveactivity\napns-topic: \(PushFixture.bundleId).push-type.liveactivity\n"))
        #expect(result.stdout.contains(#""content-state":{"beers":[{"date":"#) && result.stdout.contains("Pliny the Elder"))
        #expect(server.received.isEmpty)
        #expect(try fixture.store.readOutbox().cursors.isEmpty)
    }

    /// The shipped pipeline.json with absolute catalog paths, plus `apns` when given.
    func pipelineConfig(_ fixture: PushFixture, apns: APNsConfig?) throws -> String {
        let root = ExecutableRunner.repositoryRoot
        let data = try Data(contentsOf: URL(fileURLWithPath: root + "/pipeline.json"))
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        object["$schema"] = nil
        var stages = try #require(object["stages"] as? [[String: Any]])
        for index in stages.indices where stages[index]["name"] as? String == "lookup" {
            var parameters = try #require(stages[index]["parameters"] as? [String: Any])
            parameters["catalog"] = try #require(parameters["catalog"] as? [String]).map { root + "/" + $0 }
            stages[index]["parameters"] = parameters
        }
        object["stages"] = stages
        if let apns {
            object["apns"] = try JSONSerialization.jsonObject(with: JSONEncoder.shelfline.encode(apns))
        }
        let name = apns == nil ? "pipeline-no-apns.json" : "pipeline.json"
        return fixture.temp.write(name, String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
    }

    @Test(.bug(id: 11)) func shelflineRunPushesAfterRenderOnlyWhenConfigured() async throws {
        let fixture = PushFixture("push-run")
        let token = PushFixture.token(7)
        try await fixture.register(token, .import, kind: .update)
        let server = try await fixture.server()
        defer { Task { try? await server.shutdown() } }
        let csv = ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv"

        // Without apns: the import runs, says once that pushes are skipped, and sends nothing.
        let plain = try await Self.run(
            "shelfline",
            [
                "run", "--csv", csv, "--config", try pipelineConfig(fixture, apns: nil),
                "--workspace", fixture.workspace.root,
            ], in: fixture.temp.path)
        #expect(plain.status == 0, "\(plain)")
        #expect(plain.stderr.components(separatedBy: "push=skipped").count == 2, "\(plain)")
        #expect(server.received.isEmpty)

        // With apns: the push worker and the final send bring the import's `end` to the registered
        // update token, last (a rerun of an import already done pushes nothing).
        let config = try pipelineConfig(fixture, apns: fixture.apnsConfig(host: server.host))
        let result = try await Self.run(
            "shelfline", ["run", "--csv", csv, "--config", config, "--workspace", fixture.workspace.root],
            in: fixture.temp.path)
        #expect(result.status == 0, "\(result)")
        #expect(!result.stderr.contains("push=skipped"), "\(result)")
        #expect(result.stdout.contains("push: ") && result.stdout.contains("0 left for the next run"), "\(result)")
        let received = server.received
        #expect(
            received.last?.event == "end" && received.allSatisfy { $0.problems.isEmpty && $0.token == token },
            "\(received.map(\.problems))")
        #expect(received.allSatisfy { $0.contentStateType == "CSVImportActivityAttributes" })
        #expect(Set(received.compactMap(\.timestamp)).count == received.count, "no snapshot pushed twice")
    }
}
