import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflinePush

#if canImport(Glibc)
    import Glibc
#endif

/// A `ServeHTTPServer` on an ephemeral loopback port, a real HTTP client, and a device or two.
struct ServeFixture {
    let push: PushFixture
    let clock = ManualClock()
    let lines = LineLog()
    let server: ServeHTTPServer
    let client = HTTPClient(eventLoopGroupProvider: .singleton)

    /// `configPath`: `pipeline.json` for `POST /v1/beer-queue/refresh` (the built executables run it).
    /// The default limits with timeouts that are only backstops: under the loaded parallel suite a
    /// request's task may wait longer than the 10 s request timeout to be run, and a body the server
    /// has not read by then (as the 413 tests send) would be answered 408.
    static let patient = ServeLimits(idleTimeoutSeconds: 600, requestTimeoutSeconds: 600)

    init(_ label: String, limits: ServeLimits = patient, push: PushFixture? = nil, configPath: String? = nil) async throws {
        let push = push ?? PushFixture(label)
        self.push = push
        let clock = clock, lines = lines
        let refresher = configPath.map {
            BeerQueueRefresher(binDirectory: ExecutableRunner.productsDirectory, configPath: $0, workspace: push.workspace)
        }
        let router = ServeRouter(
            workspace: push.workspace, limits: limits, now: { clock.now }, log: Logfmt(sink: { lines.append($0) }),
            refresher: refresher)
        server = try await ServeHTTPServer.start(host: "127.0.0.1", port: 0, router: router)
    }

    func addDevice(_ name: String) async throws -> String {
        try await push.store.addDevice(name, now: clock.now)
    }

    /// One request; the status, headers and body.
    func send(
        _ method: HTTPMethod, _ path: String, secret: String?, body: String? = nil,
        authorization: String? = nil
    ) async throws -> (status: Int, headers: HTTPHeaders, body: String) {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(server.port)\(path)")
        request.method = method
        if let authorization {
            request.headers.add(name: "authorization", value: authorization)
        } else if let secret {
            request.headers.add(name: "authorization", value: "Bearer \(secret)")
        }
        if let body { request.body = .bytes(ByteBuffer(string: body)) }
        let response = try await client.execute(request, timeout: .seconds(120))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), response.headers, String(buffer: bytes))
    }

    func put(_ token: String, secret: String?, activity: String = "beer-queue", kind: String = "update") async throws -> Int {
        try await send(.PUT, "/v1/tokens/\(token)", secret: secret, body: #"{"activity":"\#(activity)","kind":"\#(kind)"}"#)
            .status
    }

    var registered: [Registration] { get throws { try push.store.readRegistry().tokens } }

    /// Closes the client's connections, then the server.
    func close() async {
        try? await client.shutdown()
        await server.shutdown()
    }

    /// Runs `body` against a fresh server, closing client and server however it ends.
    static func with(
        _ label: String, limits: ServeLimits = patient, push: PushFixture? = nil, configPath: String? = nil,
        _ body: (ServeFixture) async throws -> Void
    ) async throws {
        let serve = try await ServeFixture(label, limits: limits, push: push, configPath: configPath)
        do {
            try await body(serve)
        } catch {
            await serve.close()
            throw error
        }
        await serve.close()
    }
}

/// `shelfline-push serve` over real HTTP on loopback (issue 27).
@Suite(.bug(id: 27)) struct ServeTests {
    @Test func putRegistersForTheCallingDeviceAndDeleteRemoves() async throws {
        try await ServeFixture.with("serve-put") { serve in
            let secret = try await serve.addDevice("phone")
            let token = PushFixture.token(0xa1, bytes: 40)
            #expect(try await serve.put(token, secret: secret, kind: "start") == 201)
            let id = try serve.push.store.readDevices().devices.first?.id
            #expect(
                try serve.registered == [
                    Registration(
                        token: try DeviceToken(token), activity: .beerQueue, kind: .start,
                        registeredAt: Int(serve.clock.now.timeIntervalSince1970), device: "phone",
                        deviceId: id)
                ])
            #expect(try await serve.put(token, secret: secret, kind: "start") == 200)
            let listed = try await serve.push.store.listTokens(workspace: serve.push.workspace)
            #expect(
                listed.count == 1 && listed[0].hasPrefix("\(token) beer-queue start") && listed[0].hasSuffix(" device=phone"),
                "\(listed)")
            #expect(try await serve.send(.DELETE, "/v1/tokens/\(token)", secret: secret).status == 200)
            #expect(try serve.registered.isEmpty)
            #expect(try await serve.send(.DELETE, "/v1/tokens/\(token)", secret: secret).status == 404)
        }
    }

    @Test func healthzNeedsNoSecret() async throws {
        try await ServeFixture.with("serve-health") { serve in
            let response = try await serve.send(.GET, "/healthz", secret: nil)
            #expect(response.status == 200 && response.body.contains("ok"), "\(response)")
        }
    }

    @Test(arguments: [nil, "Bearer wrong", "Basic cGhvbmU6c2VjcmV0", "Bearer ", "SECRET"])
    func wrongOrMissingSecretIs401WithoutDetail(authorization: String?) async throws {
        try await ServeFixture.with("serve-401") { serve in
            let secret = try await serve.addDevice("phone")
            // "SECRET" stands for the right secret without the Bearer scheme.
            let header = authorization == "SECRET" ? secret : authorization
            let token = PushFixture.token(3)
            for (method, path) in [
                (HTTPMethod.PUT, "/v1/tokens/\(token)"), (.DELETE, "/v1/tokens/\(token)"), (.GET, "/v1/activities/import"),
                (.POST, "/v1/beer-queue/refresh"),
            ] {
                let response = try await serve.send(
                    method, path, secret: nil, body: method == .PUT ? #"{"activity":"import"}"# : nil,
                    authorization: header)
                #expect(response.status == 401, "\(method) \(path): \(response)")
                #expect(response.body == "{\"error\":\"unauthorized\"}\n")
            }
            #expect(try serve.registered.isEmpty)
        }
    }

    @Test func anotherDevicesTokenIsRefused() async throws {
        try await ServeFixture.with("serve-owner") { serve in
            let alice = try await serve.addDevice("alice")
            let bob = try await serve.addDevice("bob")
            let token = PushFixture.token(0x42)
            #expect(try await serve.put(token, secret: alice) == 201)
            #expect(try await serve.put(token, secret: bob, activity: "import") == 403)
            #expect(try await serve.send(.DELETE, "/v1/tokens/\(token)", secret: bob).status == 403)
            #expect(try serve.registered.map { "\($0.device ?? "-") \($0.activity.rawValue)" } == ["alice beer-queue"])
            // A token typed on the server (`register`) belongs to no device: none may take it over.
            let typed = PushFixture.token(0x43)
            try await serve.push.register(typed)
            #expect(try await serve.put(typed, secret: alice) == 403)
            #expect(try await serve.send(.DELETE, "/v1/tokens/\(typed)", secret: alice).status == 403)
            #expect(try serve.registered.count == 2)
        }
    }

    @Test(arguments: [
        "", "{", "[]", #"{"activity":"books","kind":"update"}"#, #"{"activity":"import","kind":"later"}"#, #"{"kind":"start"}"#,
    ])
    func badJSONIs400(body: String) async throws {
        try await ServeFixture.with("serve-400") { serve in
            let secret = try await serve.addDevice("phone")
            let response = try await serve.send(.PUT, "/v1/tokens/\(PushFixture.token(5))", secret: secret, body: body)
            #expect(response.status == 400, "\(response)")
            #expect(try serve.registered.isEmpty)
        }
    }

    @Test(arguments: [4097, 64 * 1024, 2 << 20])
    func bodyOverTheLimitIs413(size: Int) async throws {
        try await ServeFixture.with("serve-413") { serve in
            let secret = try await serve.addDevice("phone")
            let json = #"{"activity":"import","kind":"update"}"#
            let body = json + String(repeating: " ", count: size - json.utf8.count)
            if size > 1 << 20 {
                // Beyond the drain limit the server answers at the head, before any body byte (an HTTP
                // client still sending would see the close instead): exactly 413, then closed (issue 42).
                let port = serve.server.port, target = "/v1/tokens/\(PushFixture.token(6))"
                let (answer, rest) = try await offPool { () -> (Int?, String) in
                    let connection = try RawConnection(port: port)
                    try connection.write(
                        "PUT \(target) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(secret)\r\n"
                            + "Content-Length: \(size)\r\n\r\n")
                    return (try connection.readResponse()?.status, try connection.readUntilClosed())
                }
                #expect(answer == 413 && rest.isEmpty, "\(String(describing: answer)) \(rest)")
            } else {
                let response = try await serve.send(.PUT, "/v1/tokens/\(PushFixture.token(6))", secret: secret, body: body)
                #expect(response.status == 413, "\(response.status) \(response.body)")
            }
            #expect(try serve.registered.isEmpty)
        }
    }

    @Test(arguments: [
        "/v1/tokens/../x", "/v1/tokens/%2e%2e/x", "/v1/tokens/nothex", "/v1/tokens/" + String(repeating: "g", count: 64),
        "/v1/tokens/" + PushFixture.token(7) + "/extra", "/v1/tokens//" + PushFixture.token(7),
        "/v1/tokens/%61" + String(repeating: "a", count: 63),
        "/v1/tokens/./" + PushFixture.token(7), "/v1/activities/../tokens",
    ])
    func pathTricksAreRefused(path: String) async throws {
        try await ServeFixture.with("serve-path") { serve in
            let secret = try await serve.addDevice("phone")
            let response = try await serve.send(.PUT, path, secret: secret, body: #"{"activity":"import","kind":"update"}"#)
            #expect([400, 404].contains(response.status), "\(path): \(response)")
            #expect(try serve.registered.isEmpty)
            // The router itself, whatever the client did to the path.
            let router = ServeRouter(workspace: serve.push.workspace, log: Logfmt(quiet: true))
            let direct = await router.handle(
                ServeRequest(
                    method: "PUT", target: path, authorization: "Bearer \(secret)",
                    body: Data(#"{"activity":"import"}"#.utf8)))
            #expect([400, 404].contains(direct.status), "\(path): \(direct.status)")
            #expect(try serve.registered.isEmpty)
        }
    }

    @Test func activitySnapshotIsTheCurrentFile() async throws {
        try await ServeFixture.with("serve-activity") { serve in
            let secret = try await serve.addDevice("phone")
            #expect(try await serve.send(.GET, "/v1/activities/beer-queue", secret: secret).status == 404)
            try serve.push.emitBeerQueue(.update, beers: ["Pliny", "Heady Topper"], at: 1_760_000_100)
            let response = try await serve.send(.GET, "/v1/activities/beer-queue", secret: secret)
            let file = ActivityStoreFile.beerQueue(serve.push.workspace)
            #expect(response.status == 200)
            #expect(response.body == file, "\(response.body)")
            #expect(response.body.contains("Heady Topper"))
            #expect(try await serve.send(.GET, "/v1/activities/import", secret: secret).status == 404)
            #expect(try await serve.send(.GET, "/v1/activities/books", secret: secret).status == 404)
            #expect(try await serve.send(.PUT, "/v1/activities/beer-queue", secret: secret, body: "{}").status == 405)
        }
    }

    @Test func rateLimitAnswers429WithRetryAfterUntilTheClockMoves() async throws {
        try await ServeFixture.with("serve-429", limits: ServeLimits(burst: 2, requestsPerSecond: 0.5)) { serve in
            let alice = try await serve.addDevice("alice")
            let bob = try await serve.addDevice("bob")
            let path = "/v1/activities/import"
            #expect(try await serve.send(.GET, path, secret: alice).status == 404)
            #expect(try await serve.send(.GET, path, secret: alice).status == 404)
            let limited = try await serve.send(.GET, path, secret: alice)
            #expect(limited.status == 429)
            #expect(limited.headers.first(name: "retry-after") == "2")
            #expect(try await serve.send(.GET, path, secret: bob).status == 404, "each device has its own bucket")
            serve.clock.advance(2)
            #expect(try await serve.send(.GET, path, secret: alice).status == 404)
            #expect(try await serve.send(.GET, path, secret: alice).status == 429)
        }
    }

    @Test func logLinesNameRouteAndDeviceButNoTokenOrSecret() async throws {
        try await ServeFixture.with("serve-log") { serve in
            let secret = try await serve.addDevice("phone")
            let token = PushFixture.token(0xbe)
            _ = try await serve.put(token, secret: secret)
            _ = try await serve.put(token, secret: "wrong" + secret)
            _ = try await serve.send(.DELETE, "/v1/tokens/\(token)", secret: secret)
            let lines = serve.lines.all
            #expect(lines.contains("event=request method=PUT route=/v1/tokens/{token} status=201 device=phone"), "\(lines)")
            #expect(lines.contains { $0.contains("status=401") }, "\(lines)")
            for line in lines {
                #expect(!line.contains(token) && !line.contains(String(token.prefix(16))) && !line.contains(secret), "\(line)")
            }
        }
    }

    /// `send` holds the push lock for its whole run: PUTs wait for it, and the rest of the server
    /// keeps answering meanwhile (the waits are off the cooperative pool).
    @Test func putsWaitingForThePushLockDoNotStallOtherRequests() async throws {
        try await ServeFixture.with("serve-lock") { serve in
            let secret = try await serve.addDevice("phone")
            let held = try HeldPushLock(serve.push.store)
            let lockPath = held.path
            let waiting = 6  // more than the cooperative pool's threads, fewer than the client's 8 connections
            try await withThrowingTaskGroup(of: Int.self) { group in
                let client = serve.client, port = serve.server.port
                for n in 0..<waiting {
                    // Off the cooperative pool, which other suites' process waits may be holding.
                    group.addTask(executorPreference: BlockingExecutor.shared) {
                        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/tokens/\(PushFixture.token(0x10 + n))")
                        request.method = .PUT
                        request.headers.add(name: "authorization", value: "Bearer \(secret)")
                        request.body = .bytes(ByteBuffer(string: #"{"activity":"import"}"#))
                        return Int(try await client.execute(request, timeout: .seconds(120)).status.code)
                    }
                }
                // Every PUT is blocked in flock (the kernel lists each waiter in /proc/locks)...
                try #require(
                    await Self.waitOffPool(recheckingEvery: 0.05) { Self.flockWaiters(lockPath) >= waiting },
                    "the PUTs never reached the lock")
                // ...and the server still answers.
                #expect(try await serve.send(.GET, "/healthz", secret: nil).status == 200)
                #expect(try await serve.send(.GET, "/v1/activities/import", secret: secret).status == 404)
                #expect(try serve.registered.isEmpty)
                held.release()
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                #expect(statuses == Array(repeating: 201, count: waiting))
            }
            #expect(try serve.registered.count == waiting)
        }
    }

    @Test func shutdownFinishesTheRequestInFlightAndClosesIdleConnections() async throws {
        try await ServeFixture.with("serve-shutdown") { serve in
            let secret = try await serve.addDevice("phone")
            // An idle keep-alive connection in the client's pool: shutdown must not wait for it.
            #expect(try await serve.send(.GET, "/healthz", secret: nil).status == 200)
            let held = try HeldPushLock(serve.push.store)
            let lockPath = held.path
            let client = serve.client, port = serve.server.port, server = serve.server
            let token = PushFixture.token(0x77)
            let put = Task(executorPreference: BlockingExecutor.shared) {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/tokens/\(token)")
                request.method = .PUT
                request.headers.add(name: "authorization", value: "Bearer \(secret)")
                request.body = .bytes(ByteBuffer(string: #"{"activity":"import"}"#))
                let response = try await client.execute(request, timeout: .seconds(120))
                return (Int(response.status.code), response.headers.first(name: "connection"))
            }
            try #require(
                await Self.waitOffPool(recheckingEvery: 0.05) { Self.flockWaiters(lockPath) >= 1 },
                "the PUT never reached the lock")
            let stopping = Task { await server.shutdown() }
            try #require(
                await Self.waitOffPool(recheckingEvery: 0.05) { !Self.accepts(port) }, "the server still accepts connections")
            held.release()
            let (status, connection) = try await put.value
            #expect(status == 201)
            #expect(connection == "close")
            await stopping.value
            #expect(try serve.registered.map(\.token.hex) == [token])
        }
    }

    /// `waitUntil` on a Dispatch thread: waiting on one of the cooperative pool's few threads
    /// would starve the server's own request tasks (two such tests at once took the whole pool).
    /// The condition is checked again on each event (a change under `watching`, `TestEvent.post()`:
    /// the loopback servers post one per request, `Process.postingOnExit()` one when it exits).
    /// `recheckingEvery`: only for a condition no event announces (`flockWaiters`' /proc/locks,
    /// a port that stops accepting, a process appearing in /proc).
    static func waitOffPool(
        timeout: TimeInterval = 60, watching paths: [String] = [], recheckingEvery interval: TimeInterval? = nil,
        _ condition: @escaping @Sendable () -> Bool
    ) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.blockingWork().async {
                continuation.resume(returning: waitUntil(timeout: timeout, watching: paths, recheckingEvery: interval, condition))
            }
        }
    }

    /// Whether a TCP connection to 127.0.0.1:`port` is accepted.
    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Processes waiting for a `flock` on `path`: the `->` lines of /proc/locks naming its inode.
    static func flockWaiters(_ path: String) -> Int {
        var info = stat()
        guard stat(path, &info) == 0, let locks = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return 0 }
        return locks.split(separator: "\n").filter { $0.contains("->") && $0.contains(":\(info.st_ino) ") }.count
    }

    @Test func devicesFileHoldsOnlyDigestsAndIsPrivate() async throws {
        let push = PushFixture("serve-devices")
        let devices = push.store
        let secret = try await devices.addDevice("phone", now: Date(timeIntervalSince1970: 1_760_000_000))
        #expect(secret.utf8.count == 64)
        var info = stat()
        #expect(stat(devices.devicesPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
        let text = try String(contentsOfFile: devices.devicesPath, encoding: .utf8)
        #expect(!text.contains(secret))
        #expect(try devices.device(secret: secret)?.name == "phone")
        #expect(try devices.device(secret: secret + "0") == nil)
        await #expect(throws: DeviceError.exists("phone")) { _ = try await devices.addDevice("phone", now: Date()) }
        await #expect(throws: DeviceError.badName("../x")) { _ = try await devices.addDevice("../x", now: Date()) }
        try await devices.removeDevice("phone")
        #expect(try devices.device(secret: secret) == nil)
    }
}

/// The push lock held by the test, as a running `send` holds it, until `release` (or the end of the test).
final class HeldPushLock {
    let path: String
    private var descriptor: Int32?

    init(_ store: PushStore) throws {
        try Workspace.makeDirectory(store.directory)
        path = store.directory + "/.lock"
        descriptor = try FileLock.acquire(path)
    }

    func release() {
        if let descriptor { FileLock.release(descriptor) }
        descriptor = nil
    }

    deinit { release() }
}

/// The snapshot file render wrote, as text.
enum ActivityStoreFile {
    static func beerQueue(_ workspace: Workspace) -> String {
        (try? String(contentsOfFile: workspace.activityDirectory + "/beer-queue.json", encoding: .utf8)) ?? ""
    }
}
