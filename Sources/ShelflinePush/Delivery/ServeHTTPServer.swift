import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS
import ShelflineCore

/// HTTP/1.1 for `ServeRouter` on SwiftNIO, already in the build, where a web framework would add
/// its packages to every clean build for four routes. TLS: `tls`, or a reverse proxy (docs/push.md).
///
/// Keep-alive, one request at a time. A body over `maxBodyBytes` is read and discarded up to
/// `drainLimit` (so the client sees the 413, not a reset), then the connection closes. A request
/// being answered (a refresh takes a poll and a push) is never cut off by a timeout.
public final class ServeHTTPServer: Sendable {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    /// The port bound (the one asked for, or the kernel's pick for 0).
    public let port: Int
    private let channel: any Channel
    private let accepting: Task<Void, Never>
    private let connections: Connections
    static let drainLimit = 1 << 20

    private init(port: Int, channel: any Channel, accepting: Task<Void, Never>, connections: Connections) {
        self.port = port
        self.channel = channel
        self.accepting = accepting
        self.connections = connections
    }

    public static func start(
        host: String, port: Int, router: ServeRouter, tls: NIOSSLContext? = nil,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws -> ServeHTTPServer {
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 1024)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port) { child in
                child.eventLoop.makeCompletedFuture {
                    let phase = RequestPhase()
                    let pipeline = child.pipeline.syncOperations
                    let requestTimeout = Self.amount(router.limits.requestTimeoutSeconds)
                    // Idle counts raw bytes (a stalled TLS handshake too); the deadline, decrypted ones.
                    try pipeline.addHandler(IdleStateHandler(readTimeout: Self.amount(router.limits.idleTimeoutSeconds)))
                    if let tls {
                        // A deadline for the handshake too: else a ClientHello sent a byte every 10 s holds it.
                        try pipeline.addHandlers(NIOSSLServerHandler(context: tls), HandshakeDeadline(timeout: requestTimeout))
                    }
                    try pipeline.addHandler(RequestReadDeadline(phase: phase, timeout: requestTimeout))
                    try pipeline.configureHTTPServerPipeline(withErrorHandling: false)
                    try pipeline.addHandlers(BadRequestOnce(), RequestPhaseTracker(phase: phase))
                    return Accepted(try Connection(wrappingChannelSynchronously: child))
                }
            }
        let listening = server.channel
        let bound = listening.localAddress?.port ?? port
        let connections = Connections(limit: router.limits.maxConnections)
        // Off the cooperative pool, as the connections: with its threads all blocked elsewhere, no
        // new connection would be taken.
        let accepting = Task<Void, Never>(executorPreference: BlockingExecutor.shared) {
            try? await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { inbound in
                    for try await accepted in inbound {
                        let connection = accepted.take()
                        group.addTask(executorPreference: BlockingExecutor.shared) {
                            await ServeHTTPServer.serve(connection, router: router, connections: connections)
                        }
                    }
                }
            }
        }
        return ServeHTTPServer(port: bound, channel: listening, accepting: accepting, connections: connections)
    }

    /// For `--tls-cert` and `--tls-key`: unreadable is 66, not PEM of the right kind 65.
    public static func tlsContext(certificateFile: String, keyFile: String) throws -> NIOSSLContext {
        for path in [certificateFile, keyFile] where !FileManager.default.isReadableFile(atPath: path) {
            throw FileError.missingInput(path: path, reason: "cannot read it")
        }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateFile)
        } catch {
            throw FileError.corrupt(path: certificateFile, line: nil, reason: "not a PEM certificate chain (\(error))")
        }
        guard !chain.isEmpty else { throw FileError.corrupt(path: certificateFile, line: nil, reason: "no certificate in it") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
        } catch {
            throw FileError.corrupt(path: keyFile, line: nil, reason: "not a PEM private key")  // names no key material
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.applicationProtocols = ["http/1.1"]
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw FileError.corrupt(
                path: keyFile, line: nil, reason: "does not match the certificate in \(certificateFile) (\(error))")
        }
    }

    static func amount(_ seconds: Double) -> TimeAmount { .nanoseconds(Int64(seconds * 1e9)) }

    public func wait() async {
        await accepting.value
    }

    /// Stops accepting, closes the idle connections, and returns once those in flight are answered.
    public func shutdown() async {
        try? await channel.close()
        connections.drain()
        await accepting.value
    }

    static func serve(_ connection: Connection, router: ServeRouter, connections: Connections) async {
        let limit = router.limits.maxBodyBytes
        let id = connections.open(connection.channel)
        defer { connections.closed(id) }
        try? await connection.executeThenClose { inbound, outbound in
            var head: HTTPRequestHead?
            var body = ByteBuffer()
            var received = 0
            for try await part in inbound {
                switch part {
                case .head(let requestHead):
                    guard connections.mark(id, busy: true) else { return }
                    head = requestHead
                    body.clear()
                    received = 0
                    if let length = requestHead.headers.first(name: "content-length").flatMap(Int.init), length > drainLimit {
                        try await write(ServeResponse(413, error: "request body too large"), keepAlive: false, to: outbound)
                        return
                    }
                case .body(var chunk):
                    received += chunk.readableBytes
                    if received > drainLimit {
                        try await write(ServeResponse(413, error: "request body too large"), keepAlive: false, to: outbound)
                        return
                    }
                    if received <= limit { body.writeBuffer(&chunk) }
                case .end:
                    guard let requestHead = head else { continue }
                    head = nil
                    if received > limit {
                        router.log.event([
                            "event": "request", "method": requestHead.method.rawValue, "route": "(body too large)", "status": 413,
                        ])
                        try await write(ServeResponse(413, error: "request body too large"), keepAlive: false, to: outbound)
                        return
                    }
                    let request = ServeRequest(
                        method: requestHead.method.rawValue, target: requestHead.uri,
                        authorization: requestHead.headers.first(name: "authorization"),
                        body: Data(body.readableBytesView))
                    let response = await router.handle(request)
                    let keepAlive = requestHead.isKeepAlive && connections.mark(id, busy: false)
                    try await write(response, keepAlive: keepAlive, to: outbound)
                    if !keepAlive { return }
                }
            }
        }
    }

    static func write(
        _ response: ServeResponse, keepAlive: Bool, to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        var headers = HTTPHeaders(response.headers)
        headers.add(name: "content-length", value: "\(response.body.count)")
        if !keepAlive { headers.add(name: "connection", value: "close") }
        try await outbound.write(
            .head(HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: response.status), headers: headers)))
        try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: response.body))))
        try await outbound.write(.end(nil))
    }
}

/// A connection until the accept loop takes it. One accepted during shutdown never reaches the loop:
/// it is closed here, as NIO traps when an async channel's writer is released unfinished.
final class Accepted: @unchecked Sendable {
    private let connection: ServeHTTPServer.Connection
    private let lock = NSLock()
    private var taken = false

    init(_ connection: ServeHTTPServer.Connection) { self.connection = connection }

    func take() -> ServeHTTPServer.Connection {
        lock.withLock { taken = true }
        return connection
    }

    deinit {
        guard !lock.withLock({ taken }) else { return }
        let connection = connection
        Task { try? await connection.executeThenClose { _, _ in } }
    }
}

/// Shared by a connection's two timeout handlers, both on its event loop (no lock).
final class RequestPhase {
    enum State { case waiting, reading, answering }
    var state = State.waiting
    var deadline: Scheduled<Void>?
}

/// Before the HTTP decoder: a request's first bytes start its deadline; past it, 408 and closed.
final class RequestReadDeadline: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    let phase: RequestPhase
    let timeout: TimeAmount

    init(phase: RequestPhase, timeout: TimeAmount) {
        self.phase = phase
        self.timeout = timeout
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if phase.state == .waiting {
            phase.state = .reading
            let phase = phase
            phase.deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
                guard phase.state == .reading else { return }
                let answer = "HTTP/1.1 408 Request Timeout\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
                context.writeAndFlush(NIOAny(ByteBuffer(string: answer))).assumeIsolated().whenComplete { _ in
                    context.close(promise: nil)
                }
            }
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        phase.deadline?.cancel()
    }
}

/// Last before the async channel: a request read in full stops its deadline, its answer written in
/// full makes the connection idle; the idle timeout closes only a connection between requests.
final class RequestPhaseTracker: ChannelDuplexHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart
    let phase: RequestPhase

    init(phase: RequestPhase) { self.phase = phase }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) {
            phase.state = .answering
            phase.deadline?.cancel()
            phase.deadline = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { phase.state = .waiting }
        context.write(data, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is IdleStateHandler.IdleStateEvent else { return context.fireUserInboundEventTriggered(event) }
        // A request half read is `RequestReadDeadline`'s; one being answered is left alone.
        if phase.state == .waiting { context.close(promise: nil) }
    }
}

/// A request the decoder cannot parse is answered 400 once and closed: NIO's
/// `HTTPServerProtocolErrorHandler` answers each parse error, one per read until the close lands.
final class BadRequestOnce: ChannelDuplexHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart
    /// A response head is written and its end is not.
    private var answering = false
    private var failed = false

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else { return context.fireErrorCaught(error) }
        guard !failed else { return }
        failed = true
        guard !answering else { return context.close(promise: nil) }
        let head = HTTPResponseHead(
            version: .http1_1, status: .badRequest,
            headers: HTTPHeaders([("connection", "close"), ("content-length", "0")]))
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Nothing after a parse error is a request.
        guard !failed else { return }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head: answering = true
        case .end: answering = false
        case .body: break
        }
        context.write(data, promise: promise)
    }
}

/// Closes a TLS connection whose handshake is not done within the request timeout of its opening.
final class HandshakeDeadline: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(timeout: TimeAmount) { self.timeout = timeout }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event {
            deadline?.cancel()
            deadline = nil
        }
        context.fireUserInboundEventTriggered(event)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }
}

/// The open connections, at most `limit`: the oldest idle one is closed to make room, else the
/// newcomer (else stalled handshakes would use every descriptor).
final class Connections: @unchecked Sendable {
    private let lock = NSLock()
    private var channels: [Int: (channel: any Channel, busy: Bool)] = [:]
    private var next = 0
    private var draining = false
    let limit: Int

    init(limit: Int) { self.limit = limit }

    func open(_ channel: any Channel) -> Int {
        lock.withLock {
            next += 1
            if channels.count >= limit {
                if let oldest = channels.filter({ !$0.value.busy }).keys.min(), let shed = channels.removeValue(forKey: oldest) {
                    shed.channel.close(promise: nil)
                } else {
                    channel.close(promise: nil)
                }
            }
            channels[next] = (channel, false)
            if draining { channel.close(promise: nil) }
            return next
        }
    }

    /// A request began (`busy`) or was answered; false when draining (close, or `connection: close`).
    func mark(_ id: Int, busy: Bool) -> Bool {
        lock.withLock {
            channels[id]?.busy = busy
            return !draining
        }
    }

    func closed(_ id: Int) {
        lock.withLock { _ = channels.removeValue(forKey: id) }
    }

    /// From now on no connection is kept alive; the idle ones close now.
    func drain() {
        lock.withLock {
            draining = true
            for (_, entry) in channels where !entry.busy { entry.channel.close(promise: nil) }
        }
    }
}
