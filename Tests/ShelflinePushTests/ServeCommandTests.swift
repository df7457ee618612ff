import AsyncHTTPClient
import Foundation
import NIOCore
import ShelflineCore
import ShelflinePush
import TestSupport
import TestTraits
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `shelfline-push devices` and `serve` as processes: the README's example (issue 27).
@Suite(.bug(id: 27), .offCooperativePool) struct ServeCommandTests {
    func push(_ fixture: PushFixture, _ arguments: [String]) async throws -> ProcessResult {
        try await PushCommandTests.run(
            "shelfline-push", arguments + ["--workspace", fixture.workspace.root], in: fixture.temp.path)
    }

    /// Starts `serve --listen 127.0.0.1:0` and returns it with the URL it printed.
    func startServe(_ fixture: PushFixture, extra: [String] = []) async throws -> (Process, String) {
        let process = ExecutableRunner.start(
            "shelfline-push", ["serve", "--listen", "127.0.0.1:0", "--workspace", fixture.workspace.root] + extra,
            in: fixture.temp.path)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line: String = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.blockingWork().async {
                var data = Data()
                while !data.contains(UInt8(ascii: "\n")) {
                    let chunk = out.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    data.append(chunk)
                }
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
        guard line.hasPrefix("serving on http"),
            let url = line.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines)
        else {
            process.terminate()
            throw FileError.corrupt(path: "shelfline-push serve", line: 1, reason: "unexpected first line: \(line)")
        }
        return (process, url)
    }

    @Test func deviceAddedThenTokenPutOverHTTPIsListed() async throws {
        let fixture = PushFixture("serve-e2e")
        var result = try await push(fixture, ["devices", "add", "alice-iphone"])
        #expect(result.status == 0, "\(result)")
        let secret = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(secret.utf8.count == 64, "\(result)")
        result = try await push(fixture, ["devices", "list"])
        #expect(result.stdout.hasPrefix("alice-iphone added="), "\(result)")
        #expect(!result.stdout.contains(secret))

        let (server, url) = try await startServe(fixture)
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let token = PushFixture.token(0x5e, bytes: 32)
        var request = HTTPClientRequest(url: "\(url)/v1/tokens/\(token)")
        request.method = .PUT
        request.headers.add(name: "authorization", value: "Bearer \(secret)")
        request.body = .bytes(ByteBuffer(string: #"{"activity": "beer-queue", "kind": "start"}"#))
        var unauthorized = HTTPClientRequest(url: "\(url)/v1/tokens/\(token)")
        unauthorized.method = .DELETE
        let answers = await Result {
            (
                try await client.execute(request, timeout: .seconds(120)).status.code,
                try await client.execute(unauthorized, timeout: .seconds(120)).status.code
            )
        }
        try await client.shutdown()
        let (status, refused) = try answers.get()
        #expect(status == 201)
        #expect(refused == 401)

        // SIGTERM: a graceful stop, exit 0.
        server.terminate()
        await withCheckedContinuation { continuation in
            DispatchQueue.blockingWork().async {
                server.waitUntilExit()
                continuation.resume()
            }
        }
        #expect(server.terminationReason == .exit && server.terminationStatus == 0)

        result = try await push(fixture, ["list"])
        #expect(result.stdout.contains("\(token) beer-queue start"), "\(result)")
        #expect(result.stdout.contains("device=alice-iphone"), "\(result)")

        result = try await push(fixture, ["devices", "add", "alice-iphone"])
        #expect(result.status == 64 && result.stderr.contains("exists"), "\(result)")
        result = try await push(fixture, ["devices", "remove", "alice-iphone"])
        #expect(result.status == 0, "\(result)")
        result = try await push(fixture, ["devices", "list"])
        #expect(result.stdout == "no devices\n", "\(result)")
    }
}

extension ServeCommandTests {
    /// SIGKILL while PUTs stream in: the registry is the previous or the next whole file, and the
    /// next `serve` carries on from it.
    @Test func killedMidRequestLeavesTheRegistryWhole() async throws {
        let fixture = PushFixture("serve-kill")
        let secret = try await push(fixture, ["devices", "add", "phone"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let (server, url) = try await startServe(fixture, extra: ["--rate-burst", "100000", "--rate-per-second", "100000"])
        defer { server.terminate() }
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let load = Task {
            var sent = 0
            while true {
                var request = HTTPClientRequest(url: "\(url)/v1/tokens/\(PushFixture.token(sent % 256, bytes: 32 + sent / 256))")
                request.method = .PUT
                request.headers.add(name: "authorization", value: "Bearer \(secret)")
                request.body = .bytes(ByteBuffer(string: #"{"activity":"import"}"#))
                guard (try? await client.execute(request, timeout: .seconds(120))) != nil else { return sent }
                sent += 1
            }
        }
        let registryPath = fixture.store.registryPath
        let filled = await ServeTests.waitOffPool(watching: [registryPath]) {
            ((try? readJSONFile(Registry.self, from: registryPath))?.tokens.count ?? 0) >= 20
        }
        kill(server.processIdentifier, SIGKILL)
        let sent = await load.value
        try await client.shutdown()
        try #require(filled, "the registry never reached 20 tokens")
        let registry = try fixture.store.readRegistry()
        #expect(registry.tokens.count >= 20 && registry.tokens.count <= sent + 1, "\(registry.tokens.count) of \(sent)")
        #expect(registry.tokens.allSatisfy { $0.device == "phone" && $0.activity == .import })

        let (again, againURL) = try await startServe(fixture)
        defer { again.terminate() }
        let second = HTTPClient(eventLoopGroupProvider: .singleton)
        var request = HTTPClientRequest(url: "\(againURL)/v1/tokens/\(PushFixture.token(0xfe, bytes: 64))")
        request.method = .PUT
        request.headers.add(name: "authorization", value: "Bearer \(secret)")
        request.body = .bytes(ByteBuffer(string: #"{"activity":"import"}"#))
        let status = await Result { try await second.execute(request, timeout: .seconds(120)).status.code }
        try await second.shutdown()
        #expect(try status.get() == 201)
        #expect(try fixture.store.readRegistry().tokens.count == registry.tokens.count + 1)
    }
}

extension Result where Failure == any Error {
    /// `Result(catching:)` for async bodies.
    init(_ body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
