import Foundation
import ShelflineCore
import TestSupport
import TestTraits
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 36, items 7 and the minor `serve` ones, through the built `shelfline-push serve`: a TLS
/// handshake is bounded by the request timeout, open connections are capped (the oldest idle one
/// shed), a non-loopback listen without TLS is warned about, a busy port is named, and an HTTP/0.9
/// request gets exactly one 400. What is waited for is the server closing a connection; the
/// backstop (`RawConnection`'s 120 s receive timeout) only ends a test that would otherwise hang.
@Suite(.offCooperativePool) struct ServeConnectionLimitTests {
    let commands = ServeCommandTests()

    /// The port of a `serving on http(s)://HOST:PORT` URL.
    static func port(_ url: String) -> Int { Int(url.split(separator: ":").last ?? "") ?? 0 }

    @Test(.bug(id: 36)) func aTLSHandshakeThatStallsIsClosedAtTheRequestTimeout() async throws {
        let fixture = PushFixture("serve-handshake")
        guard let (cert, key) = try ServeTLSTests.certificate(in: fixture.temp) else { return }
        // The idle timeout cannot be what closes it: only the handshake's deadline can.
        let (server, url) = try await commands.startServe(
            fixture,
            extra: [
                "--tls-cert", cert, "--tls-key", key, "--request-timeout", "1", "--idle-timeout", "86400",
            ])
        defer { server.terminate() }
        let port = Self.port(url)
        let sent = try await offPool { () -> String in
            let connection = try RawConnection(port: port)
            try connection.write("\u{16}")  // the first byte of a ClientHello, then nothing
            return try connection.readUntilClosed()
        }
        #expect(sent.isEmpty, "\(sent)")
        #expect(server.isRunning)
    }

    @Test(.bug(id: 36)) func beyondMaxConnectionsTheOldestIdleOneIsClosed() async throws {
        let fixture = PushFixture("serve-cap")
        let (server, url) = try await commands.startServe(fixture, extra: ["--max-connections", "3", "--idle-timeout", "86400"])
        defer { server.terminate() }
        let port = Self.port(url)
        let (oldestAfter, newest, othersOpen) = try await offPool { () -> (String, Int?, Bool) in
            // Three kept-alive connections, one after the other, each answered once (so the server
            // has counted it before the next arrives: "oldest" is this order), then idle.
            let open = try (0..<3).map { _ in
                let connection = try RawConnection(port: port)
                try connection.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                _ = try connection.readResponse()
                return connection
            }
            let fourth = try RawConnection(port: port)
            try fourth.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            let status = try fourth.readResponse()?.status
            let oldest = try open[0].readUntilClosed()
            // The second is still served.
            try open[1].write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            return (oldest, status, try open[1].readResponse()?.status == 200)
        }
        #expect(newest == 200)
        #expect(oldestAfter.isEmpty, "the oldest idle connection was closed: \(oldestAfter)")
        #expect(othersOpen)
    }

    @Test(.bug(id: 36)) func anHTTP09RequestGetsExactlyOne400() async throws {
        let fixture = PushFixture("serve-http09")
        let (server, url) = try await commands.startServe(fixture)
        defer { server.terminate() }
        let port = Self.port(url)
        let sent = try await offPool { () -> String in
            let connection = try RawConnection(port: port)
            try connection.write("GET /healthz\r\n\r\n")
            return try connection.readUntilClosed()
        }
        #expect(sent.components(separatedBy: "HTTP/1.1 400").count == 2, "\(sent)")
        #expect(!sent.contains("200"), "\(sent)")
    }

    @Test(.bug(id: 36)) func listeningBeyondLoopbackWithoutTLSIsWarnedAbout() async throws {
        let fixture = PushFixture("serve-warn")
        let process = ExecutableRunner.start(
            "shelfline-push", ["serve", "--listen", "0.0.0.0:0", "--workspace", fixture.workspace.root],
            in: fixture.temp.path)
        let err = fixture.temp.write("serve.err", "")
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        try process.run()
        defer { process.terminate() }
        let warned = await ServeTests.waitOffPool(timeout: 120, watching: [err]) {
            ((try? String(contentsOfFile: err, encoding: .utf8)) ?? "").contains("without TLS")
        }
        let text = (try? String(contentsOfFile: err, encoding: .utf8)) ?? ""
        #expect(warned && text.contains("0.0.0.0:0") && text.components(separatedBy: "warning").count == 2, "\(text)")
    }

    @Test(.bug(id: 36)) func aBusyPortIsNamedAndExits75() async throws {
        let fixture = PushFixture("serve-busy")
        let (server, url) = try await commands.startServe(fixture)
        defer { server.terminate() }
        let address = "127.0.0.1:\(Self.port(url))"
        let result = try await commands.push(fixture, ["serve", "--listen", address])
        #expect(result.status == 75, "\(result)")
        #expect(result.stderr.contains("cannot listen on \(address)"), "\(result)")
    }
}
