import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// A request the loopback server received.
public struct LoopbackRequest: Sendable {
    public var method: String
    /// Path and query as sent, e.g. `/api/books?bibkeys=ISBN:1&format=json`.
    public var uri: String
    /// Path without the query.
    public var path: String
    /// Decoded query parameters (last value wins).
    public var query: [String: String]
    /// Header names lowercased.
    public var headers: [String: String]
    public var body: [UInt8]
    public var receivedAt: Date
}

/// What the handler answers: a status and body, optionally late or not at all.
public struct LoopbackResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// Wait this long before answering (latency, timeouts).
    public var delay: Duration?
    /// Close the connection without answering.
    public var dropConnection: Bool

    public init(
        status: Int = 200, headers: [(String, String)] = [], body: [UInt8] = [], delay: Duration? = nil,
        dropConnection: Bool = false
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.delay = delay
        self.dropConnection = dropConnection
    }

    public static func json(status: Int = 200, _ body: String, delay: Duration? = nil) -> LoopbackResponse {
        LoopbackResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(body.utf8), delay: delay)
    }

    public static func text(
        status: Int = 200, _ body: String, contentType: String = "text/plain; charset=utf-8",
        delay: Duration? = nil
    ) -> LoopbackResponse {
        LoopbackResponse(status: status, headers: [("Content-Type", contentType)], body: Array(body.utf8), delay: delay)
    }

    public static func html(status: Int = 200, _ body: String, delay: Duration? = nil) -> LoopbackResponse {
        text(status: status, body, contentType: "text/html; charset=utf-8", delay: delay)
    }

    public static func redirect(to location: String) -> LoopbackResponse {
        LoopbackResponse(status: 302, headers: [("Location", location)])
    }

    /// Close the connection without a response.
    public static let drop = LoopbackResponse(dropConnection: true)
}

/// A real HTTP/1.1 server on 127.0.0.1 (random port) for tests: the stand-in for Open Library and
/// the beer-queue site, which are out of reach here. Every request is recorded.
public final class LoopbackHTTPServer: Sendable {
    public typealias Handler = @Sendable (LoopbackRequest) async -> LoopbackResponse
    /// Answers on the server's own event loop thread, delays included, so the server keeps
    /// answering while the test's cooperative threads are blocked (e.g. waiting for a process).
    public typealias ImmediateHandler = @Sendable (LoopbackRequest) -> LoopbackResponse

    public let port: Int
    private let channel: any Channel
    private let group: MultiThreadedEventLoopGroup
    private let log: RequestLog

    /// Starts the server; it answers every request with `handler`.
    public convenience init(handler: @escaping Handler) async throws {
        try await self.init(answer: .async(handler))
    }

    /// Starts the server; it answers every request with `handler`, on its event loop. `port` 0: any free port.
    public convenience init(port: Int = 0, immediate handler: @escaping ImmediateHandler) async throws {
        try await self.init(answer: .immediate(handler), port: port)
    }

    private init(answer handler: LoopbackHandler.Answer, port requested: Int = 0) async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let log = RequestLog()
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.pipeline.configureHTTPServerPipeline().flatMap {
                    channel.pipeline.addHandler(LoopbackHandler(handler: handler, log: log))
                }
            }
        channel = try await bootstrap.bind(host: "127.0.0.1", port: requested).get()
        port = channel.localAddress?.port ?? 0
        self.group = group
        self.log = log
    }

    /// `http://127.0.0.1:PORT`
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Every request received so far, in arrival order.
    public var requests: [LoopbackRequest] { log.all }

    /// Returns once `count` requests have arrived; throws (naming what it waited for) when they have
    /// not after `timeout` of real time. The timeout is a safety net for a broken test, not a measure.
    public func waitForRequests(_ count: Int, timeout: Duration = .seconds(120)) async throws {
        try await log.wait(for: count, timeout: timeout)
    }

    /// Stops listening and closes all connections; answers still delayed are dropped.
    public func shutdown() async throws {
        log.stop()
        try? await channel.close()
        try await group.shutdownGracefully()
    }
}

/// Thrown by `waitForRequests` when the requests did not come.
public struct LoopbackWaitTimeout: Error, CustomStringConvertible {
    public var description: String
}

private final class RequestLog: @unchecked Sendable {
    private struct Waiter {
        var id: UUID
        var count: Int
        var continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var entries: [LoopbackRequest] = []
    private var waiters: [Waiter] = []
    private var stopped = false

    func append(_ request: LoopbackRequest) {
        let ready = lock.withLock { () -> [Waiter] in
            entries.append(request)
            let ready = waiters.filter { $0.count <= entries.count }
            waiters.removeAll { $0.count <= entries.count }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
        TestEvent.post()  // a `waitUntil` on the requests checks again
    }

    var all: [LoopbackRequest] { lock.withLock { entries } }

    var isStopped: Bool { lock.withLock { stopped } }

    func stop() { lock.withLock { stopped = true } }

    func wait(for count: Int, timeout: Duration) async throws {
        let id = UUID()
        let timer = Task {
            try await Task.sleep(for: timeout)
            self.expire(id)
        }
        defer { timer.cancel() }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let ready = lock.withLock { () -> Bool in
                guard entries.count < count else { return true }
                waiters.append(Waiter(id: id, count: count, continuation: continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private func expire(_ id: UUID) {
        let expired = lock.withLock { () -> (Waiter, Int)? in
            guard let index = waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return (waiters.remove(at: index), entries.count)
        }
        if let (waiter, seen) = expired {
            waiter.continuation.resume(
                throwing: LoopbackWaitTimeout(description: "waited for \(waiter.count) requests, \(seen) arrived"))
        }
    }
}

private final class LoopbackHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    enum Answer: Sendable {
        case async(LoopbackHTTPServer.Handler)
        case immediate(LoopbackHTTPServer.ImmediateHandler)
    }

    private let handler: Answer
    private let log: RequestLog
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(handler: Answer, log: RequestLog) {
        self.handler = handler
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
            body = []
        case .body(var buffer):
            body += buffer.readBytes(length: buffer.readableBytes) ?? []
        case .end:
            guard let head else { return }
            let request = Self.makeRequest(head, body: body)
            log.append(request)
            let keepAlive = head.isKeepAlive
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            let eventLoop = context.eventLoop
            switch handler {
            case .immediate(let handler):
                let response = handler(request)
                if let delay = response.delay {
                    let nanoseconds = delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000
                    eventLoop.scheduleTask(in: .nanoseconds(nanoseconds)) {
                        self.respond(bound.value, response, keepAlive: keepAlive)
                    }
                } else {
                    respond(context, response, keepAlive: keepAlive)
                }
            case .async(let handler):
                // On an event loop, not the test process's cooperative pool (see EventLoopTaskExecutor).
                Task(executorPreference: EventLoopTaskExecutor.answers) {
                    let response = await handler(request)
                    if let delay = response.delay { try? await Task.sleep(for: delay) }
                    guard !self.log.isStopped else { return }
                    eventLoop.execute { self.respond(bound.value, response, keepAlive: keepAlive) }
                }
            }
        }
    }

    private func respond(_ context: ChannelHandlerContext, _ response: LoopbackResponse, keepAlive: Bool) {
        guard context.channel.isActive else { return }
        if response.dropConnection {
            context.close(promise: nil)
            return
        }
        var headers = HTTPHeaders(response.headers)
        headers.replaceOrAdd(name: "Content-Length", value: "\(response.body.count)")
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: response.status), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        var buffer = context.channel.allocator.buffer(capacity: response.body.count)
        buffer.writeBytes(response.body)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    private static func makeRequest(_ head: HTTPRequestHead, body: [UInt8]) -> LoopbackRequest {
        let components = URLComponents(string: head.uri)
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
        var headers: [String: String] = [:]
        for (name, value) in head.headers { headers[name.lowercased()] = value }
        return LoopbackRequest(
            method: head.method.rawValue, uri: head.uri, path: components?.path ?? head.uri,
            query: query, headers: headers, body: body, receivedAt: Date())
    }
}
