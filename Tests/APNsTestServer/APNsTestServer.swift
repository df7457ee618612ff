import COpenSSL
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL
import TestSupport

/// One push as the loopback APNs received and checked it.
public struct ReceivedPush: Sendable {
    /// The device token from the path.
    public var token: String
    public var headers: [String: String]
    public var body: [UInt8]
    /// The provider token (JWT) it carried.
    public var jwt: String
    /// `iat` of the JWT.
    public var issuedAt: Int?
    /// `aps.event`.
    public var event: String?
    /// `CSVImportActivityAttributes` or `BeerQueueAttributes`: the app struct the content-state decoded into.
    public var contentStateType: String?
    /// `aps.timestamp`.
    public var timestamp: Int?
    /// Everything that does not match what APNs and the app require; empty for a good push.
    public var problems: [String]
}

/// What the loopback APNs answers.
public struct APNsAnswer: Sendable {
    public var status: Int
    public var reason: String?

    public init(status: Int, reason: String? = nil) {
        self.status = status
        self.reason = reason
    }

    public static let ok = APNsAnswer(status: 200)
}

/// A loopback stand-in for APNs: HTTP/2 only (ALPN `h2`) over TLS with a self-signed certificate
/// made at start. It checks every push as APNs and the phone would — the ES256 provider token's
/// signature against the team key's public half, `kid` and `iss`, the headers and topic, and the
/// body decoded into the app's own structs (`PhoneApp`) — records it, and answers with `responder`
/// (a push that fails a check is answered 400 `TestServerCheckFailed` instead).
public final class APNsTestServer: Sendable {
    public typealias Responder = @Sendable (ReceivedPush) async -> APNsAnswer

    public let port: Int
    /// The server's certificate, PEM: what `apns.caFile` must trust.
    public let certificatePEM: String
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let log: PushLog

    public struct Expectations: Sendable {
        /// The team key's public half: its uncompressed P-256 point.
        public var publicPoint: [UInt8]
        public var keyId: String
        public var teamId: String
        public var bundleId: String

        public init(publicPoint: [UInt8], keyId: String, teamId: String, bundleId: String) {
            self.publicPoint = publicPoint
            self.keyId = keyId
            self.teamId = teamId
            self.bundleId = bundleId
        }
    }

    /// The server's key and certificate, so that a server stopped mid-test can come back as the
    /// same host (`init(…, port:, identity:)`), trusted by the same `caFile`.
    /// The fixed ones are in LoopbackIdentities.swift.
    public struct Identity: Sendable {
        var keyPEM: String
        public var certificatePEM: String
    }

    public let identity: Identity

    /// - Parameters:
    ///   - http1Only: be a TLS server that is not APNs: ALPN offers only `http/1.1`, and every
    ///     request gets `responder`'s answer (checks are recorded, not enforced).
    ///   - port, identity: come back where a stopped server was, with its certificate.
    public init(
        expecting expectations: Expectations, threads: Int = 1, http1Only: Bool = false, port: Int = 0,
        identity: Identity = .loopback, responder: @escaping Responder
    ) async throws {
        self.identity = identity
        certificatePEM = identity.certificatePEM

        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(try NIOSSLCertificate(bytes: Array(identity.certificatePEM.utf8), format: .pem))],
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(identity.keyPEM.utf8), format: .pem)))
        tls.applicationProtocols = http1Only ? ["http/1.1"] : ["h2"]
        let context = try NIOSSLContext(configuration: tls)
        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        let log = PushLog()
        let checker = PushChecker(expectations: expectations)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                log.connectionOpened()
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                }.flatMap {
                    if http1Only {
                        return channel.pipeline.configureHTTPServerPipeline().flatMapThrowing {
                            try channel.pipeline.syncOperations.addHandler(
                                PushStreamHandler(checker: checker, log: log, responder: responder, enforcing: false))
                        }
                    }
                    return channel.configureHTTP2Pipeline(
                        mode: .server,
                        inboundStreamInitializer: { stream in
                            stream.eventLoop.makeCompletedFuture {
                                try stream.pipeline.syncOperations.addHandlers([
                                    HTTP2FramePayloadToHTTP1ServerCodec(),
                                    PushStreamHandler(checker: checker, log: log, responder: responder),
                                ])
                            }
                        }
                    ).map { _ in }
                }
            }
        channel = try await bootstrap.bind(host: "127.0.0.1", port: port).get()
        self.port = channel.localAddress?.port ?? 0
        self.group = group
        self.log = log
    }

    /// `https://127.0.0.1:PORT`, for `apns.host`.
    public var host: String { "https://127.0.0.1:\(port)" }

    /// Every push received so far, in arrival order.
    public var received: [ReceivedPush] { log.all }

    /// TCP connections accepted so far (AsyncHTTPClient multiplexes pushes as HTTP/2 streams on one).
    public var connections: Int { log.connections }

    public func shutdown() async throws {
        try? await channel.close()
        try await group.shutdownGracefully()
    }
}

private final class PushLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [ReceivedPush] = []
    private var opened = 0
    func append(_ push: ReceivedPush) {
        lock.withLock { entries.append(push) }
        TestEvent.post()  // a `waitUntil` on `received` checks again
    }
    var all: [ReceivedPush] { lock.withLock { entries } }
    func connectionOpened() { lock.withLock { opened += 1 } }
    var connections: Int { lock.withLock { opened } }
}

/// Checks one request against what APNs and the app require.
struct PushChecker: Sendable {
    var expectations: APNsTestServer.Expectations
    let verified = VerifiedTokens()

    func check(head: HTTPRequestHead, body: [UInt8]) -> ReceivedPush {
        var problems: [String] = []
        var headers: [String: String] = [:]
        for (name, value) in head.headers { headers[name.lowercased()] = value }
        if head.version.major != 2 { problems.append("not HTTP/2 (\(head.version))") }
        if head.method != .POST { problems.append("method \(head.method.rawValue)") }
        let prefix = "/3/device/"
        let token = head.uri.hasPrefix(prefix) ? String(head.uri.dropFirst(prefix.count)) : ""
        if token.isEmpty || !token.allSatisfy(\.isHexDigit) { problems.append("path \(head.uri)") }
        if headers["apns-push-type"] != "liveactivity" {
            problems.append("apns-push-type \(headers["apns-push-type"] ?? "missing")")
        }
        if headers["apns-topic"] != expectations.bundleId + ".push-type.liveactivity" {
            problems.append("apns-topic \(headers["apns-topic"] ?? "missing")")
        }
        if !["5", "10"].contains(headers["apns-priority"] ?? "") {
            problems.append("apns-priority \(headers["apns-priority"] ?? "missing")")
        }
        if Int(headers["apns-expiration"] ?? "") == nil {
            problems.append("apns-expiration \(headers["apns-expiration"] ?? "missing")")
        }
        if UUID(uuidString: headers["apns-id"] ?? "") == nil { problems.append("apns-id \(headers["apns-id"] ?? "missing")") }

        let authorization = headers["authorization"] ?? ""
        let jwt = authorization.hasPrefix("bearer ") ? String(authorization.dropFirst(7)) : ""
        let issuedAt = checkJWT(jwt, &problems)

        if body.count > 4096 { problems.append("body of \(body.count) bytes > 4096") }
        let (event, type, timestamp) = checkBody(body, &problems)
        return ReceivedPush(
            token: token, headers: headers, body: body, jwt: jwt, issuedAt: issuedAt, event: event,
            contentStateType: type, timestamp: timestamp, problems: problems)
    }

    /// ES256 signature over `header.claims`, `kid`, `iss`, `iat`.
    func checkJWT(_ jwt: String, _ problems: inout [String]) -> Int? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = base64URL(parts[0]), let claimsData = base64URL(parts[1]),
            let signatureData = base64URL(parts[2])
        else {
            problems.append("authorization is not a bearer JWT")
            return nil
        }
        let header = (try? JSONSerialization.jsonObject(with: headerData)) as? [String: Any] ?? [:]
        let claims = (try? JSONSerialization.jsonObject(with: claimsData)) as? [String: Any] ?? [:]
        if header["alg"] as? String != "ES256" { problems.append("JWT alg \(header["alg"] ?? "missing")") }
        if header["kid"] as? String != expectations.keyId { problems.append("JWT kid \(header["kid"] ?? "missing")") }
        if claims["iss"] as? String != expectations.teamId { problems.append("JWT iss \(claims["iss"] ?? "missing")") }
        let issuedAt = claims["iat"] as? Int
        if issuedAt == nil { problems.append("JWT iat missing") }
        // A provider token is reused for many pushes: its signature is checked once.
        if verified.contains(jwt) { return issuedAt }
        let signed = Data((parts[0] + "." + parts[1]).utf8)
        if signatureData.count == 64 {
            let valid = signatureData.withUnsafeBytes { signature in
                signed.withUnsafeBytes { message in
                    shelfline_es256_verify(
                        expectations.publicPoint, expectations.publicPoint.count,
                        message.bindMemory(to: UInt8.self).baseAddress, message.count,
                        signature.bindMemory(to: UInt8.self).baseAddress)
                }
            }
            if valid == 1 {
                verified.insert(jwt)
            } else {
                problems.append("JWT signature does not verify")
            }
        } else {
            problems.append("JWT signature is not a 64-byte ES256 signature")
        }
        return issuedAt
    }

    /// The body decodes into the app's structs; `start` carries `attributes-type` and `attributes`.
    func checkBody(_ body: [UInt8], _ problems: inout [String]) -> (String?, String?, Int?) {
        struct Envelope<A: Decodable, S: Decodable>: Decodable {
            struct APS: Decodable {
                var timestamp: Int
                var event: String
                var contentState: S
                var attributesType: String?
                var attributes: A?
                enum CodingKeys: String, CodingKey {
                    case timestamp, event, attributes
                    case contentState = "content-state"
                    case attributesType = "attributes-type"
                }
            }
            var aps: APS
        }
        func attempt<A: Decodable, S: Decodable>(_ a: A.Type, _ s: S.Type, _ name: String) -> (String?, String?, Int?)? {
            guard let envelope = try? JSONDecoder().decode(Envelope<A, S>.self, from: Data(body)) else { return nil }
            let aps = envelope.aps
            if !["start", "update", "end"].contains(aps.event) { problems.append("aps.event \(aps.event)") }
            if aps.event == "start" {
                if aps.attributesType != name { problems.append("start without attributes-type \(name)") }
                if aps.attributes == nil { problems.append("start without attributes") }
            } else if aps.attributesType != nil || aps.attributes != nil {
                problems.append("\(aps.event) carries attributes")
            }
            return (aps.event, name, aps.timestamp)
        }
        if let result = attempt(
            PhoneApp.BeerQueueAttributes.self, PhoneApp.BeerQueueAttributes.ContentState.self, "BeerQueueAttributes")
        {
            return result
        }
        if let result = attempt(
            PhoneApp.CSVImportActivityAttributes.self, PhoneApp.CSVImportActivityAttributes.ContentState.self,
            "CSVImportActivityAttributes")
        {
            return result
        }
        problems.append("body does not decode into the app's content-state structs")
        return (nil, nil, nil)
    }

    func base64URL(_ text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}

/// Provider tokens whose signature verified.
final class VerifiedTokens: @unchecked Sendable {
    private let lock = NSLock()
    private var tokens: Set<String> = []
    func contains(_ jwt: String) -> Bool { lock.withLock { tokens.contains(jwt) } }
    func insert(_ jwt: String) { lock.withLock { _ = tokens.insert(jwt) } }
}

/// One HTTP/2 stream: collects the request, checks it, asks the responder, answers.
private final class PushStreamHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let checker: PushChecker
    private let log: PushLog
    private let responder: APNsTestServer.Responder
    private let enforcing: Bool
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(checker: PushChecker, log: PushLog, responder: @escaping APNsTestServer.Responder, enforcing: Bool = true) {
        self.checker = checker
        self.log = log
        self.responder = responder
        self.enforcing = enforcing
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
        case .body(var buffer):
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            guard let head else { return }
            let push = checker.check(head: head, body: body)
            log.append(push)
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            let responder = responder
            let enforcing = enforcing
            let version = head.version
            // On an event loop, not the test process's cooperative pool (see EventLoopTaskExecutor).
            Task(executorPreference: EventLoopTaskExecutor.answers) {
                let answer =
                    push.problems.isEmpty || !enforcing
                    ? await responder(push) : APNsAnswer(status: 400, reason: "TestServerCheckFailed")
                eventLoop.execute { self.respond(bound.value, answer, apnsId: push.headers["apns-id"], version: version) }
            }
            self.head = nil
            body = []
        }
    }

    private func respond(_ context: ChannelHandlerContext, _ answer: APNsAnswer, apnsId: String?, version: HTTPVersion) {
        guard context.channel.isActive else { return }
        var headers = HTTPHeaders()
        if let apnsId { headers.add(name: "apns-id", value: apnsId) }
        var buffer = context.channel.allocator.buffer(capacity: 64)
        if let reason = answer.reason {
            headers.add(name: "content-type", value: "application/json")
            buffer.writeString(#"{"reason":"\#(reason)"}"#)
        }
        headers.add(name: "content-length", value: "\(buffer.readableBytes)")
        let head = HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: answer.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if buffer.readableBytes > 0 { context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}
