import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// One push as APNs receives it.
public struct PushRequest: Sendable, Equatable {
    public var token: DeviceToken
    public var topic: String
    public var priority: Int
    /// Unix seconds.
    public var expiration: Int
    /// Derived from token and snapshot, so a re-sent push keeps its id.
    public var apnsId: String
    public var body: Data

    /// The headers besides `authorization`, in the order `--dry-run` prints them.
    public var headers: [(String, String)] {
        [
            ("apns-push-type", "liveactivity"), ("apns-topic", topic), ("apns-priority", String(priority)),
            ("apns-expiration", String(expiration)), ("apns-id", apnsId), ("content-type", "application/json"),
        ]
    }
}

/// APNs' answer: the status, its `reason` when not 200, and the `apns-id` it echoed.
public struct PushAnswer: Sendable, Equatable {
    public var status: Int
    public var reason: String?
    public var apnsId: String?
}

/// The push certainly never reached APNs: sending it again cannot make a duplicate.
public struct PushNotSent: Error, CustomStringConvertible {
    public var underlying: any Error
    public init(_ underlying: any Error) { self.underlying = underlying }
    public var description: String { "\(underlying)" }
}

/// Throwing means no answer arrived; `PushNotSent` when the request certainly was not written.
public protocol PushTransport: Sendable {
    func send(_ request: PushRequest, providerToken: String) async throws -> PushAnswer
    func shutdown() async
}

/// APNs over HTTP/2 (ALPN, one TLS connection, concurrent streams) with AsyncHTTPClient.
public final class APNsTransport: PushTransport {
    private let client: HTTPClient
    private let host: String
    private let timeout: TimeAmount

    public init(settings: PushSettings) throws {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile = settings.caFile {
            tls.additionalTrustRoots = [.certificates(try Self.certificates(caFile, settings: settings))]
        }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: .init(
                connect: .seconds(Int64(max(1, settings.timeout))), read: .milliseconds(Int64(settings.timeout * 1000))))
        configuration.httpVersion = .automatic
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 1)
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        host = settings.host
        timeout = .milliseconds(Int64(settings.timeout * 1000))
    }

    public func send(_ push: PushRequest, providerToken: String) async throws -> PushAnswer {
        var request = HTTPClientRequest(url: host + "/3/device/" + push.token.hex)
        request.method = .POST
        request.headers.add(name: "authorization", value: "bearer " + providerToken)
        for (name, value) in push.headers { request.headers.add(name: name, value: value) }
        // The body is pulled only once a stream is open: a failure before means the push was not sent.
        let written = WrittenBody(ByteBuffer(bytes: push.body))
        request.body = .stream(written, length: .known(Int64(push.body.count)))
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: timeout)
        } catch {
            if let reason = Self.untrustedCertificate(error) { throw PushError.untrustedCertificate(host: host, reason: reason) }
            throw written.pulled ? error : PushNotSent(error)
        }
        guard response.version.major == 2 else {
            throw PushError.notHTTP2(host: host, version: "HTTP/\(response.version.major).\(response.version.minor)")
        }
        let body = try await response.body.collect(upTo: 64 * 1024)
        struct Reason: Decodable { var reason: String? }
        let reason =
            body.readableBytes > 0 ? (try? JSONDecoder().decode(Reason.self, from: Data(body.readableBytesView)))?.reason : nil
        return PushAnswer(status: Int(response.status.code), reason: reason, apnsId: response.headers.first(name: "apns-id"))
    }

    static func certificates(_ caFile: String, settings: PushSettings) throws -> [NIOSSLCertificate] {
        func refuse(_ what: String) -> ConfigError {
            ConfigError(path: settings.configPath, key: "apns.caFile", expected: "a PEM certificate file: \(caFile): \(what)")
        }
        var info = stat()
        guard stat(caFile, &info) == 0 else { throw refuse(systemErrorMessage()) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw refuse("not a regular file") }
        guard info.st_size <= 1 << 20 else { throw refuse("larger than 1 MiB") }
        guard let data = FileManager.default.contents(atPath: caFile) else {
            throw refuse("cannot be read: \(systemErrorMessage())")
        }
        guard String(decoding: data, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            throw refuse("holds no '-----BEGIN CERTIFICATE-----' block")
        }
        do {
            return try NIOSSLCertificate.fromPEMBytes(Array(data))
        } catch {
            throw refuse("a certificate in it does not decode (cut short or not base64?)")
        }
    }

    /// The reason, when the server's certificate did not verify.
    static func untrustedCertificate(_ error: any Error) -> String? {
        let text = String(describing: error)
        for marker in [
            "CERTIFICATE_VERIFY_FAILED", "certificate verify failed", "unable to get local issuer certificate",
            "self signed certificate", "self-signed certificate", "certificate has expired",
            "Hostname/IP does not match", "hostname mismatch",
        ] where text.localizedCaseInsensitiveContains(marker) {
            return marker
        }
        return nil
    }

    public func shutdown() async {
        try? await client.shutdown()
    }
}

/// A request body of one buffer that says whether the client ever asked for it.
final class WrittenBody: AsyncSequence, @unchecked Sendable {
    typealias Element = ByteBuffer
    private let buffer: ByteBuffer
    private let lock = NSLock()
    private var asked = false

    init(_ buffer: ByteBuffer) { self.buffer = buffer }

    var pulled: Bool { lock.withLock { asked } }
    fileprivate func markPulled() { lock.withLock { asked = true } }

    struct AsyncIterator: AsyncIteratorProtocol {
        let body: WrittenBody
        var done = false
        mutating func next() async -> ByteBuffer? {
            guard !done else { return nil }
            done = true
            body.markPulled()
            return body.buffer
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(body: self) }
}
