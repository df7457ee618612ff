import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// One request: its deadline covers connect, head and body; cancelled with the calling task.
public struct HTTPGet: Sendable {
    public var url: URL
    public var headers: [(String, String)]
    /// Seconds the whole exchange may take (each redirect's request has its own).
    public var timeoutSeconds: Double
    /// The longest body read; a longer one fails with `tooLarge`.
    public var limit: Int
    public var redirects: RedirectRule
    /// Sent as a POST with this body (its `Content-Type` among `headers`); nil: a GET.
    public var body: Data?

    public init(
        url: URL, headers: [(String, String)] = [], timeoutSeconds: Double, limit: Int,
        redirects: RedirectRule = .none, body: Data? = nil
    ) {
        self.url = url
        self.headers = headers
        self.timeoutSeconds = timeoutSeconds
        self.limit = limit
        self.redirects = redirects
        self.body = body
    }

    /// Which redirects are followed, at most `maximum` in a row; `allows` judges each target.
    public struct RedirectRule: Sendable {
        public var maximum: Int
        public var allows: @Sendable (URL) -> Bool

        public init(maximum: Int, allows: @escaping @Sendable (URL) -> Bool) {
            self.maximum = maximum
            self.allows = allows
        }

        /// A redirect is an answer like any other.
        public static let none = RedirectRule(maximum: 0) { _ in false }

        /// Any http(s) URL (no other scheme), at most `maximum`.
        public static func http(maximum: Int) -> RedirectRule {
            RedirectRule(maximum: maximum) { ["http", "https"].contains($0.scheme?.lowercased()) }
        }
    }

    /// A status and the body (complete, within the limit).
    public struct Answer: Sendable {
        public var status: Int
        /// `Location` of a redirect not followed (`RedirectRule.none`), nil otherwise.
        public var location: String?
        /// `Retry-After` as sent (seconds or an HTTP date), nil without one.
        public var retryAfter: String?
        public var body: Data
    }

    /// Why there is no answer.
    public enum Failure: Error, Sendable, Equatable {
        /// The body (or its `Content-Length`) is longer than `limit`.
        case tooLarge
        case timedOut
        case cancelled
        case nameResolution
        /// No connection could be made (refused, no route): nothing reached the server.
        case unreachable(reason: String)
        /// A redirect the rule does not allow (`to` nil: no usable `Location`), or too many.
        case redirectRefused(to: URL?)
        case tooManyRedirects
        case other(String)
    }

    /// Sends the GET (following allowed redirects) and reads the answer.
    public func run() async -> Result<Answer, Failure> {
        var current = url
        var followed = 0
        while true {
            let result = await once(current)
            guard case .success(let answer) = result else { return result }
            guard redirects.maximum > 0, [301, 302, 303, 307, 308].contains(answer.status) else { return .success(answer) }
            let next = answer.location.flatMap { URL(string: $0, relativeTo: current)?.absoluteURL }
            guard let next, redirects.allows(next) else { return .failure(.redirectRefused(to: next)) }
            followed += 1
            guard followed <= redirects.maximum else { return .failure(.tooManyRedirects) }
            current = next
        }
    }

    /// One request, no redirect followed.
    private func once(_ url: URL) async -> Result<Answer, Failure> {
        if Task.isCancelled { return .failure(.cancelled) }
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(
                url: url.absoluteString, method: body == nil ? .GET : .POST, headers: HTTPHeaders(headers),
                body: body.map { .bytes(Array($0)) })
        } catch {
            return .failure(.other("cannot send to \(url.absoluteString): \(error)"))
        }
        // Fails at a `Content-Length` past the limit, or once the body passes it, closing the connection:
        // nothing more is read. A `ByteBuffer` holds at most 4 GiB.
        let accumulator = ResponseAccumulator(request: request, maxBodySize: min(limit, Int(UInt32.max)))
        let task = SharedHTTPClient.client.execute(
            request: request, delegate: accumulator, eventLoop: .indifferent,
            deadline: .now() + .milliseconds(Int64(max(1, timeoutSeconds * 1000))), logger: nil)
        do {
            let response = try await withTaskCancellationHandler {
                try await task.futureResult.get()
            } onCancel: {
                task.cancel()
            }
            return .success(
                Answer(
                    status: Int(response.status.code), location: response.headers.first(name: "location"),
                    retryAfter: response.headers.first(name: "retry-after"),
                    body: response.body.map { Data($0.readableBytesView) } ?? Data()))
        } catch {
            return .failure(Task.isCancelled ? .cancelled : Self.classify(error))
        }
    }

    /// What an error of AsyncHTTPClient or NIO means here.
    static func classify(_ error: any Error) -> Failure {
        switch error {
        case is ResponseAccumulator.ResponseTooBigError:
            return .tooLarge
        case let error as HTTPClientError:
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout, .writeTimeout: return .timedOut
            case .cancelled: return .cancelled
            case .remoteConnectionClosed: return .other("connection lost")
            default: return .other("\(error)")
            }
        case let error as NIOConnectionError:
            if error.connectionErrors.isEmpty, error.dnsAError != nil || error.dnsAAAAError != nil { return .nameResolution }
            let reasons = error.connectionErrors.map { describe($0.error) }
            return .unreachable(reason: reasons.first ?? "no address for \(error.host)")
        case is SocketAddressError:
            return .nameResolution
        case let error as IOError where [ECONNREFUSED, ENETUNREACH, EHOSTUNREACH].contains(error.errnoCode):
            return .unreachable(reason: describe(error))
        case ChannelError.connectTimeout:
            return .timedOut
        default:
            return .other("\(error)")
        }
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? IOError else { return "\(error)" }
        return error.errnoCode == ECONNREFUSED ? "connection refused" : String(cString: strerror(error.errnoCode)).lowercased()
    }
}

/// The process's one client, never shut down: one event-loop thread (callers make a few requests
/// at a time), redirects left to `HTTPGet`, and a failed connection fails its requests at once
/// (AsyncHTTPClient would retry it until the deadline).
enum SharedHTTPClient {
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: .seconds(60)),
            decompression: .enabled(limit: .ratio(100)))
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(
            eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup(numberOfThreads: 1)),
            configuration: configuration)
    }()
}
