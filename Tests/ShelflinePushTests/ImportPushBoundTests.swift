import APNsTestServer
import Foundation
import ShelflineCore
import TestSupport
import TestTraits
import Testing

@testable import ShelflinePush

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 36, item 3: a slow or absent APNs never holds `shelfline run`'s exit, and the pushes of
/// an import reach the phone once each (one `start`, one `end`, no progress replayed after it),
/// through the built executables. "Slow" is an APNs that holds every answer until the test
/// releases it, with `apns.timeoutSeconds` far beyond the test's bound: a run that waited for an
/// answer would never end within it. No clock is read; each wait is for an event, with a generous
/// bound (`ImportPushBoundTests.bound`) that only ends a test that would otherwise hang.
@Suite(.offCooperativePool) struct ImportPushBoundTests {
    /// Seconds a wait may take on a loaded machine before the test fails rather than hangs; the
    /// run under test exits within `PushWorker.exitWaitSeconds` (2 s) of its import.
    static let bound: TimeInterval = 120
    /// Far beyond `bound`: a run that waited for APNs' answer would still be waiting.
    static let apnsTimeout = 3_600.0

    let startToken = PushFixture.token(0x5a)
    let updateToken = PushFixture.token(0x6b)

    func register(_ fixture: PushFixture) async throws {
        try await fixture.register(startToken, .import, kind: .start)
        try await fixture.register(updateToken, .import, kind: .update)
    }

    /// `shelfline run` of the shipped example with `apns` at `host`, waited for at most `bound`.
    func importExample(_ fixture: PushFixture, host: String) async throws -> BoundedResult {
        var apns = fixture.apnsConfig(host: host, timeout: Self.apnsTimeout)
        apns.minimumUpdateIntervalSeconds = 0
        let config = try PushCommandTests().pipelineConfig(fixture, apns: apns)
        let csv = ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv"
        return try await Self.run(
            "shelfline", ["run", "--csv", csv, "--config", config, "--workspace", fixture.workspace.root],
            in: fixture.temp.path)
    }

    /// Runs an executable on a Dispatch thread; nil when it has not exited within `bound`.
    static func run(_ name: String, _ arguments: [String], in directory: String) async throws -> BoundedResult {
        let process = ExecutableRunner.start(name, arguments, in: directory)
        let output = TemporaryDirectory("bounded-run")
        let out = output.write("out", ""), err = output.write("err", "")
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        process.standardInput = FileHandle.nullDevice
        process.postingOnExit()
        try process.run()
        let exited = await ServeTests.waitOffPool(timeout: bound) { !process.isRunning }
        // SIGKILL: a run stuck waiting for APNs takes SIGTERM as "pause", which waits too.
        if !exited { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let result = BoundedResult(
            status: exited ? process.terminationStatus : -1,
            stdout: (try? String(contentsOfFile: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
        try #require(exited, "\(name) did not exit within \(Int(bound)) s while APNs held its answers: \(result)")
        return result
    }

    /// The update token's cursor is at the import's last snapshot, delivered: the worker left
    /// running after the run's exit has had its answers.
    /// Waits (at most `bound`) until the update token's cursor is at the end, delivered.
    func endRecorded(_ fixture: PushFixture) async -> Bool {
        let workspace = fixture.workspace, token = updateToken
        return await ServeTests.waitOffPool(timeout: Self.bound, watching: [workspace.root]) {
            Self.endRecorded(workspace, token: token)
        }
    }

    static func endRecorded(_ workspace: Workspace, token: String) -> Bool {
        guard let cursor = try? PushStore(workspace: workspace).readOutbox().cursors[token], cursor.deliveredAt != nil,
            let last = try? LivePushEndToEndTests.timestamps(workspace).last
        else { return false }
        return cursor.last.timestamp == last
    }

    /// A loopback APNs that answers nothing until the test releases the gate.
    static func heldAPNs(_ fixture: PushFixture) async throws -> (APNsTestServer, AnswerGate) {
        let gate = AnswerGate()
        let server = try await fixture.server { _ in
            await gate.pass()
            return .ok
        }
        return (server, gate)
    }

    /// What `token` received, by event.
    static func events(_ server: APNsTestServer, _ token: String) -> [String] {
        server.received.filter { $0.token == token }.compactMap(\.event)
    }

    @Test(.bug(id: 36)) func aSlowAPNsNeitherHoldsTheImportsExitNorGetsAStartTwice() async throws {
        let fixture = PushFixture("push-slow-apns")
        try await register(fixture)
        let (server, gate) = try await Self.heldAPNs(fixture)
        defer {
            gate.release(10_000)
            Task { try? await server.shutdown() }
        }

        let result = try await importExample(fixture, host: server.host)
        #expect(result.status == 0, "\(result)")
        #expect(gate.released == 0, "the run ended before APNs answered anything")

        // The answers come late: each is a delivery, and nothing is sent twice.
        gate.release(10_000)
        let recorded = await endRecorded(fixture)
        try #require(recorded, "the worker never recorded the end: \(Self.events(server, updateToken))")
        let send = try await PushCommandTests().push(fixture, ["send"], config: fixture.temp.file("pipeline.json"))
        #expect(send.status == 0, "\(send)")
        #expect(Self.events(server, startToken) == ["start"])
        let updates = Self.events(server, updateToken)
        #expect(updates.last == "end" && updates.filter { $0 == "end" }.count == 1, "\(updates)")
        #expect(server.received.allSatisfy { $0.problems.isEmpty }, "\(server.received.map(\.problems))")
    }

    /// A `PUT` through `serve` while a `send` waits for a slow APNs answers at once: the send holds
    /// the push lock only to read and record, never while waiting.
    @Test(.bug(id: 36)) func aPutNeverWaitsBehindASendWaitingForAPNs() async throws {
        let fixture = PushFixture("push-put-beside-send")
        try await fixture.register(PushFixture.token(0x11))
        try fixture.emitBeerQueue(.update, beers: ["A"], at: 1_760_000_000)
        let (server, gate) = try await Self.heldAPNs(fixture)
        defer {
            gate.release(10_000)
            Task { try? await server.shutdown() }
        }
        let config = try fixture.writeConfig(host: server.host, timeout: Self.apnsTimeout)
        let send = ExecutableRunner.start("shelfline-push", ["send", "--workspace", fixture.workspace.root, "--config", config])
        send.standardOutput = FileHandle.nullDevice
        send.standardError = FileHandle.nullDevice
        send.postingOnExit()
        try send.run()
        defer { if send.isRunning { kill(send.processIdentifier, SIGKILL) } }
        try #require(await ServeTests.waitOffPool(timeout: Self.bound) { !server.received.isEmpty }, "the send never pushed")
        try await ServeFixture.with("push-put-beside-send", push: fixture) { serve in
            let secret = try await serve.addDevice("phone")
            #expect(try await serve.put(PushFixture.token(0x22), secret: secret) == 201)
            #expect(gate.released == 0, "answered while APNs still held the send's push")
        }
        gate.release(10_000)
        #expect(await ServeTests.waitOffPool(timeout: Self.bound) { !send.isRunning })
    }

    /// The pid of the `shelfline-push watch` working for `workspace`, from /proc.
    static func workerPid(_ workspace: Workspace) -> pid_t? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = pid_t(entry), let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else {
                continue
            }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if arguments.contains("watch"), arguments.contains(workspace.root),
                arguments.first?.hasSuffix("shelfline-push") == true
            {
                return pid
            }
        }
        return nil
    }

    /// The worker killed while lookup waits for Open Library (held by the test): the run still
    /// ends 0, says so once on stderr and once in `push/watch.log`, and its own send delivers the end.
    @Test(.bug(id: 36)) func aWorkerKilledMidImportIsSaidOnceAndTheRunsSendTakesOver() async throws {
        let fixture = PushFixture("push-worker-killed")
        try await fixture.register(updateToken, .import, kind: .update)
        let (csvText, books) = LivePushEndToEndTests.export(rows: 6)
        let csv = fixture.temp.write("export.csv", csvText)
        let (library, heldLibrary, gate) = try await LivePushEndToEndTests.heldOpenLibrary(books: books)
        let server = try await fixture.server()
        defer {
            gate.release(10_000)
            Task {
                try? await server.shutdown()
                try? await heldLibrary.shutdown()
                try? await library.shutdown()
            }
        }
        let config = try LivePushEndToEndTests().config(
            fixture, name: "pipeline.json", openLibrary: heldLibrary.baseURL,
            apns: fixture.apnsConfig(host: server.host))
        let run = ExecutableRunner.start(
            "shelfline", ["run", "--csv", csv, "--config", config, "--workspace", fixture.workspace.root],
            in: fixture.temp.path)
        let err = fixture.temp.write("run.err", "")
        run.standardOutput = FileHandle.nullDevice
        run.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        run.postingOnExit()
        try run.run()
        defer { if run.isRunning { kill(run.processIdentifier, SIGKILL) } }
        let workspace = fixture.workspace
        try #require(
            await ServeTests.waitOffPool(timeout: Self.bound, recheckingEvery: 0.05) { Self.workerPid(workspace) != nil },
            "no worker started")
        let worker = try #require(Self.workerPid(workspace))
        kill(worker, SIGKILL)
        gate.release(10_000)
        try #require(await ServeTests.waitOffPool(timeout: Self.bound) { !run.isRunning }, "the run never ended")
        #expect(run.terminationStatus == 0)
        let stderr = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        #expect(stderr.components(separatedBy: "killed by signal 9").count == 2, "\(stderr)")
        let watchLog = (try? String(contentsOfFile: fixture.store.directory + "/watch.log", encoding: .utf8)) ?? ""
        #expect(watchLog.components(separatedBy: "killed by signal 9").count == 2, "\(watchLog)")
        #expect(Self.events(server, updateToken).last == "end", "the run's send delivered the end")
    }

    @Test(.bug(id: 36)) func anAbsentAPNsNeverHoldsTheImportsExitAndItsStartGoesOnceWhenItIsBack() async throws {
        let fixture = PushFixture("push-absent-apns")
        try await register(fixture)
        // A port that refuses connections: a loopback APNs started and stopped.
        let gone = try await fixture.server()
        let port = gone.port, identity = gone.identity
        try await gone.shutdown()

        let result = try await importExample(fixture, host: "https://127.0.0.1:\(port)")
        #expect(result.status == 0, "\(result)")

        // APNs comes back on the same host: the worker still trying (or the next send) delivers
        // the start once, and the end once, with no progress after it.
        let server = try await bindingAgain {
            try await APNsTestServer(expecting: fixture.expectations, port: port, identity: identity) { _ in .ok }
        }
        defer { Task { try? await server.shutdown() } }
        let send = try await PushCommandTests().push(fixture, ["send"], config: fixture.temp.file("pipeline.json"))
        #expect(send.status == 0, "\(send)")
        let recorded = await endRecorded(fixture)
        try #require(recorded, "the end was never delivered")
        let again = try await PushCommandTests().push(fixture, ["send"], config: fixture.temp.file("pipeline.json"))
        #expect(again.status == 0, "\(again)")
        #expect(Self.events(server, startToken) == ["start"])
        let updates = Self.events(server, updateToken)
        #expect(updates.last == "end" && updates.filter { $0 == "end" }.count == 1, "\(updates)")
    }
}

/// The sender's rules behind it, in process against a transport the test scripts: a `start` whose
/// answer never came counts as given; one that never left is sent later; an import's backlog is
/// never replayed.
@Suite(.offCooperativePool) struct AtMostOnceStartTests {
    let token = PushFixture.token(0x3c)

    func send(_ fixture: PushFixture, _ transport: ScriptedTransport) async throws -> (any Error)? {
        let settings = try fixture.settings(host: "https://127.0.0.1:1")
        let sender = PushSender(workspace: fixture.workspace, settings: settings, clock: ManualClock().pushClock)
        let providerToken = ProviderToken(
            key: try settings.loadSigningKey(), keyId: PushFixture.keyId, teamId: PushFixture.teamId,
            now: { Date(timeIntervalSince1970: 1_760_000_000) })
        do {
            try await sender.send(transport: transport, providerToken: providerToken)
            return nil
        } catch {
            return error
        }
    }

    @Test(.bug(id: 36)) func aStartWrittenButNeverAnsweredIsNotSentAgain() async throws {
        let fixture = PushFixture("push-start-once")
        try await fixture.register(token, .import, kind: .start)
        try fixture.emitImport(.start, processed: 0, at: 1_760_000_000)
        let transport = ScriptedTransport(failFirst: .written)
        _ = try await send(fixture, transport)  // logged `outcome=unconfirmed-not-resent`
        #expect(try await send(fixture, transport) == nil)
        #expect(transport.events == ["start"], "the start went once")
    }

    @Test(.bug(id: 36)) func aStartThatNeverLeftIsSentLater() async throws {
        let fixture = PushFixture("push-start-not-sent")
        try await fixture.register(token, .import, kind: .start)
        try fixture.emitImport(.start, processed: 0, at: 1_760_000_000)
        let transport = ScriptedTransport(failFirst: .notSent)
        #expect(try await send(fixture, transport) != nil)
        #expect(try await send(fixture, transport) == nil)
        #expect(transport.events == ["start", "start"], "refused first, then delivered")
        #expect(try fixture.store.readOutbox().cursors[token]?.deliveredAt != nil)
    }

    @Test(.bug(id: 36)) func aSendAfterTheEndGivesTheEndAloneNeverTheProgressBeforeIt() async throws {
        let fixture = PushFixture("push-no-replay")
        try await fixture.register(token, .import, kind: .update)
        try fixture.emitImport(.update, processed: 0, at: 1_760_000_000)
        let transport = ScriptedTransport(failFirst: nil)
        #expect(try await send(fixture, transport) == nil)
        for processed in 1...4 { try fixture.emitImport(.update, processed: processed, at: 1_760_000_000 + processed) }
        try fixture.emitImport(.end, processed: 10, at: 1_760_000_010)
        #expect(try await send(fixture, transport) == nil)
        #expect(try await send(fixture, transport) == nil)
        #expect(transport.events == ["update", "end"], "the end alone, once")
    }
}

/// Answers 200 to every push but the first, which fails as `failFirst` says: written and never
/// answered, or refused before it was written (`PushNotSent`).
final class ScriptedTransport: PushTransport, @unchecked Sendable {
    enum Failure { case written, notSent }
    struct NoAnswer: Error {}
    private let lock = NSLock()
    private var failure: Failure?
    private var sent: [String] = []

    init(failFirst: Failure?) { failure = failFirst }

    /// `aps.event` of every push asked for, in order.
    var events: [String] { lock.withLock { sent } }

    func send(_ request: PushRequest, providerToken: String) async throws -> PushAnswer {
        let object = try JSONSerialization.jsonObject(with: request.body) as? [String: Any]
        let event = (object?["aps"] as? [String: Any])?["event"] as? String ?? "?"
        let failure: Failure? = lock.withLock {
            sent.append(event)
            defer { self.failure = nil }
            return self.failure
        }
        switch failure {
        case .written: throw NoAnswer()
        case .notSent: throw PushNotSent(NoAnswer())
        case nil: return PushAnswer(status: 200, apnsId: request.apnsId)
        }
    }

    func shutdown() async {}
}

/// What a bounded run printed and how it exited.
struct BoundedResult: CustomStringConvertible {
    var status: Int32
    var stdout: String
    var stderr: String
    var description: String { "exit \(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)" }
}
