import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import ShelflineCore
import ShelflinePush
import TestSupport
import TestTraits
import Testing

/// `serve --tls-cert/--tls-key` (issue 27): HTTPS without a reverse proxy.
@Suite(.bug(id: 27), .offCooperativePool) struct ServeTLSTests {
    /// A self-signed P-256 certificate for 127.0.0.1 made by the openssl command; nil (and a
    /// failure under CI=true) without it.
    static func certificate(in temp: TemporaryDirectory) throws -> (cert: String, key: String)? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else {
            if ContinuousIntegration.isRunning { Issue.record("openssl is not installed") }
            return nil
        }
        let cert = temp.file("cert.pem"), key = temp.file("key.pem")
        let made = try ExecutableRunner.run(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert,
            ])
        try #require(made.status == 0, "\(made)")
        return (cert, key)
    }

    @Test func theRoutesAnswerOverTLSAndPlainHTTPIsRefused() async throws {
        let push = PushFixture("serve-tls")
        guard let (cert, key) = try Self.certificate(in: push.temp) else { return }
        let secret = try await push.store.addDevice("phone", now: Date())
        let router = ServeRouter(workspace: push.workspace, log: Logfmt(quiet: true))
        let server = try await ServeHTTPServer.start(
            host: "127.0.0.1", port: 0, router: router,
            tls: try ServeHTTPServer.tlsContext(certificateFile: cert, keyFile: key))
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(cert))
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
        let plain = HTTPClient(eventLoopGroupProvider: .singleton)
        let token = PushFixture.token(0x71)
        let outcome = await Result { () -> (Int, Int, Bool) in
            let health = try await client.execute(
                HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/healthz"), timeout: .seconds(120))
            var put = HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/v1/tokens/\(token)")
            put.method = .PUT
            put.headers.add(name: "authorization", value: "Bearer \(secret)")
            put.body = .bytes(ByteBuffer(string: #"{"activity":"beer-queue","kind":"start"}"#))
            let registered = try await client.execute(put, timeout: .seconds(120))
            // Plain HTTP to the TLS port gets no HTTP answer.
            let plainAnswered =
                (try? await plain.execute(
                    HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/healthz"),
                    timeout: .seconds(120))) != nil
            return (Int(health.status.code), Int(registered.status.code), plainAnswered)
        }
        try? await client.shutdown()
        try? await plain.shutdown()
        await server.shutdown()
        let (health, registered, plainAnswered) = try outcome.get()
        #expect(health == 200)
        #expect(registered == 201)
        #expect(!plainAnswered)
        #expect(try push.store.readRegistry().tokens.map(\.token.hex) == [token])
    }

    @Test func unreadableOrWrongTLSFilesAreNamed() async throws {
        let push = PushFixture("serve-tls-bad")
        guard let (cert, key) = try Self.certificate(in: push.temp) else { return }
        let missing = push.temp.file("absent.pem")
        #expect(throws: FileError.missingInput(path: missing, reason: "cannot read it")) {
            try ServeHTTPServer.tlsContext(certificateFile: cert, keyFile: missing)
        }
        let garbage = push.temp.write("garbage.pem", "not a key\n")
        #expect(throws: FileError.corrupt(path: garbage, line: nil, reason: "not a PEM private key")) {
            try ServeHTTPServer.tlsContext(certificateFile: cert, keyFile: garbage)
        }
        // Swapped: the key file is no certificate.
        #expect(throws: FileError.self) { try ServeHTTPServer.tlsContext(certificateFile: key, keyFile: key) }

        let result = try await PushCommandTests.run(
            "shelfline-push",
            [
                "serve", "--listen", "127.0.0.1:0", "--tls-cert", cert,
                "--workspace", push.workspace.root,
            ], in: push.temp.path)
        #expect(result.status == 64 && result.stderr.contains("--tls-key"), "\(result)")
        let keyText = try String(contentsOfFile: key, encoding: .utf8)
        #expect(!result.stderr.contains(keyText))
    }
}
