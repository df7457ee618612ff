import AsyncHTTPClient
import Foundation
import NIOCore
import ShelflineCore
import ShelflinePush
import Testing
import TestSupport

/// `shelfline-push devices` and `serve` as processes: the README's example (issue 27).
@Suite(.bug("issue 27")) struct ServeCommandTests {
    func push(_ fixture: PushFixture, _ arguments: [String]) async throws -> ProcessResult {
        try await PushCommandTests.run("shelfline-push", arguments + ["--workspace", fixture.workspace.root], in: fixture.temp.path)
    }

    /// Starts `serve --listen 127.0.0.1:0` and returns it with the URL it printed.
    func startServe(_ fixture: PushFixture) async throws -> (Process, String) {
        let process = ExecutableRunner.start("shelfline-push", ["serve", "--listen", "127.0.0.1:0", "--workspace", fixture.workspace.root],
                                             in: fixture.temp.path)
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let line: String = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                var data = Data()
                while !data.contains(UInt8(ascii: "\n")) {
                    let chunk = out.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    data.append(chunk)
                }
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
        guard line.hasPrefix("serving on http://"), let url = line.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines) else {
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
            (try await client.execute(request, timeout: .seconds(120)).status.code,
             try await client.execute(unauthorized, timeout: .seconds(120)).status.code)
        }
        try await client.shutdown()
        let (status, refused) = try answers.get()
        #expect(status == 201)
        #expect(refused == 401)

        // SIGTERM: a graceful stop, exit 0.
        server.terminate()
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
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

extension Result where Failure == any Error {
    /// `Result(catching:)` for async bodies.
    init(_ body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
