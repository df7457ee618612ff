import Foundation
import ShelflineActivity
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// Limits `serve` applies to every caller; `serve`'s options and `ServeCommand.ranges` set them.
public struct ServeLimits: Sendable {
    /// Larger bodies are answered 413 (a token body is under 100 bytes).
    public var maxBodyBytes = 4096
    /// Per-device token bucket: this many requests at once, refilled at `requestsPerSecond`.
    public var burst = 30.0
    public var requestsPerSecond = 1.0
    /// A second per-device bucket for refreshes (each polls the site and pushes).
    public var refreshBurst = 3.0
    public var refreshesPerSecond = 3.0 / 60
    /// A keep-alive connection between requests that sends nothing this long is closed.
    public var idleTimeoutSeconds = 60.0
    /// A request not in full this long after its first byte is answered 408 and closed.
    public var requestTimeoutSeconds = 10.0
    /// Beyond it the oldest idle connection is closed (`Connections`).
    public var maxConnections = ServeLimits.defaultMaxConnections()
}

extension ServeLimits {
    /// The defaults, for `serve` to set its options on (the memberwise initializer is internal).
    public static var defaults: ServeLimits { ServeLimits() }

    /// Descriptors kept free for the state files, locks, a refresh's children and the listener.
    static let reservedDescriptors = 256

    /// The descriptor soft limit less `reservedDescriptors` (at least 16): call after raising it.
    public static func defaultMaxConnections() -> Int {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 - reservedDescriptors }
        let soft = limit.rlim_cur == rlim_t.max ? 1 << 20 : Int(min(limit.rlim_cur, 1 << 20))
        return max(16, soft - reservedDescriptors)
    }
}

/// One token bucket per device on an injected clock.
public final class RateLimiter: @unchecked Sendable {
    private let burst: Double
    private let perSecond: Double
    private let lock = NSLock()
    private var buckets: [String: (tokens: Double, at: Date)] = [:]

    public init(burst: Double, perSecond: Double) {
        self.burst = burst
        self.perSecond = perSecond
    }

    /// Takes one request from `key`'s bucket: nil when allowed, else the whole seconds until one is.
    public func take(_ key: String, now: Date) -> Int? {
        lock.withLock {
            var bucket = buckets[key] ?? (burst, now)
            bucket.tokens = min(burst, bucket.tokens + max(0, now.timeIntervalSince(bucket.at)) * perSecond)
            bucket.at = now
            defer { buckets[key] = bucket }
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                return nil
            }
            return max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up)))
        }
    }
}

/// A request as the transport read it (body already capped).
public struct ServeRequest: Sendable {
    public var method: String
    /// As sent (`/v1/tokens/ab…?x=1`).
    public var target: String
    public var authorization: String?
    public var body: Data
}

/// A route's answer: JSON, with its headers.
public struct ServeResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: Data

    init(_ status: Int, json: String, headers: [(String, String)] = []) {
        self.status = status
        self.headers = [("content-type", "application/json")] + headers
        body = Data((json + "\n").utf8)
    }

    init(_ status: Int, error: String, headers: [(String, String)] = []) {
        self.init(status, json: #"{"error":"\#(error)"}"#, headers: headers)
    }
}

/// The routes of `shelfline-push serve`, independent of the transport (`ServeHTTPServer`). Every
/// route but `/healthz` needs a device's bearer secret; the log never names a token or a secret.
public struct ServeRouter: Sendable {
    public var workspace: Workspace
    public var limits: ServeLimits
    public var now: @Sendable () -> Date
    public var log: Logfmt
    /// Runs `POST /v1/beer-queue/refresh`; without one that route is 404.
    public var refresher: BeerQueueRefresher?
    let limiter: RateLimiter
    let refreshLimiter: RateLimiter

    public init(
        workspace: Workspace, limits: ServeLimits = .defaults, now: @escaping @Sendable () -> Date = { Date() },
        log: Logfmt = Logfmt(), refresher: BeerQueueRefresher? = nil
    ) {
        // `serve`'s options are range-checked before this; a caller in code must keep them so too.
        precondition(limits.requestsPerSecond > 0 && limits.burst >= 1)
        precondition(limits.refreshesPerSecond > 0 && limits.refreshBurst >= 1)
        precondition(limits.idleTimeoutSeconds > 0 && limits.requestTimeoutSeconds > 0)
        self.workspace = workspace
        self.limits = limits
        self.now = now
        self.log = log
        self.refresher = refresher
        limiter = RateLimiter(burst: limits.burst, perSecond: limits.requestsPerSecond)
        refreshLimiter = RateLimiter(burst: limits.refreshBurst, perSecond: limits.refreshesPerSecond)
    }

    var store: PushStore { PushStore(workspace: workspace) }

    struct TokenBody: Decodable {
        var activity: PushActivity
        var kind: TokenKind?
    }

    public func handle(_ request: ServeRequest) async -> ServeResponse {
        let (route, response, device) = await route(request)
        log.event([
            "event": "request", "method": request.method, "route": route, "status": response.status, "device": device ?? "-",
        ])
        return response
    }

    /// The route pattern (for the log), the answer, and the caller.
    private func route(_ request: ServeRequest) async -> (String, ServeResponse, String?) {
        guard let segments = Self.segments(request.target) else {
            return ("(bad path)", ServeResponse(400, error: "bad path"), nil)
        }
        if segments == ["healthz"] {
            return (
                "/healthz",
                request.method == "GET" ? ServeResponse(200, json: #"{"status":"ok"}"#) : Self.methodNotAllowed("GET"), nil
            )
        }
        let device: Device
        do {
            guard let header = request.authorization, header.hasPrefix("Bearer "),
                let found = try store.device(secret: String(header.dropFirst("Bearer ".count)))
            else {
                return (
                    "(unauthorized)", ServeResponse(401, error: "unauthorized", headers: [("www-authenticate", "Bearer")]), nil
                )
            }
            device = found
        } catch {
            log.error("shelfline-push serve: \(error)")
            return ("(unauthorized)", ServeResponse(500, error: "internal error"), nil)
        }
        if let wait = limiter.take(device.name, now: now()) {
            return ("(rate limited)", Self.tooMany(wait), device.name)
        }
        if segments == ["v1", "beer-queue", "refresh"], let refresher {
            guard request.method == "POST" else { return ("/v1/beer-queue/refresh", Self.methodNotAllowed("POST"), device.name) }
            if let wait = refreshLimiter.take(device.name, now: now()) {
                return ("(rate limited)", Self.tooMany(wait), device.name)
            }
            return ("/v1/beer-queue/refresh", await refresher.refresh(log: log), device.name)
        }
        if segments.count == 3, segments[0] == "v1" {
            switch segments[1] {
            case "tokens": return ("/v1/tokens/{token}", await tokens(request, token: segments[2], device: device), device.name)
            case "activities": return ("/v1/activities/{name}", activity(request, name: segments[2]), device.name)
            default: break
            }
        }
        return ("(not found)", ServeResponse(404, error: "not found"), device.name)
    }

    private func tokens(_ request: ServeRequest, token text: String, device: Device) async -> ServeResponse {
        guard request.method == "PUT" || request.method == "DELETE" else { return Self.methodNotAllowed("PUT, DELETE") }
        guard let token = try? DeviceToken(text) else {
            return ServeResponse(400, error: "the token must be 64 to 510 hex digits")
        }
        do {
            return try await withTaskExecutorPreference(BlockingExecutor.shared) {
                if request.method == "PUT" {
                    guard let body = try? JSONDecoder().decode(TokenBody.self, from: request.body) else {
                        return ServeResponse(
                            400, error: #"expected {\"activity\": \"import\"|\"beer-queue\", \"kind\": \"start\"|\"update\"}"#)
                    }
                    let changed = try await store.register(
                        token, activity: body.activity, kind: body.kind ?? .update, now: now(), device: device)
                    return ServeResponse(
                        changed ? 201 : 200, json: #"{"status":"\#(changed ? "registered" : "already registered")"}"#)
                }
                let removed = try await store.unregister(token, device: device)
                return removed
                    ? ServeResponse(200, json: #"{"status":"unregistered"}"#) : ServeResponse(404, error: "not registered")
            }
        } catch let error as DeviceError where error == .notOwner {
            return ServeResponse(403, error: "this token was registered by another device")
        } catch {
            log.error("shelfline-push serve: \(error)")
            return ServeResponse(500, error: "internal error")
        }
    }

    private func activity(_ request: ServeRequest, name: String) -> ServeResponse {
        guard request.method == "GET" else { return Self.methodNotAllowed("GET") }
        guard let activity = PushActivity(rawValue: name) else { return ServeResponse(404, error: "no such activity") }
        let path = ActivityStore(workspace: workspace, name: activity.rawValue).snapshotPath
        guard let data = FileManager.default.contents(atPath: path) else { return ServeResponse(404, error: "no snapshot yet") }
        var response = ServeResponse(200, json: "")
        response.body = data
        return response
    }

    static func tooMany(_ wait: Int) -> ServeResponse {
        ServeResponse(429, error: "too many requests", headers: [("retry-after", "\(wait)")])
    }

    static func methodNotAllowed(_ allowed: String) -> ServeResponse {
        ServeResponse(405, error: "method not allowed", headers: [("allow", allowed)])
    }

    /// The path's segments, the query dropped; nil for anything a path trick could hide in:
    /// not absolute, percent-escapes, empty, `.` or `..` segments, bytes outside printable ASCII.
    static func segments(_ target: String) -> [String]? {
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        guard path.hasPrefix("/"),
            path.utf8.allSatisfy({ $0 > 32 && $0 < 127 && $0 != UInt8(ascii: "%") && $0 != UInt8(ascii: "\\") })
        else {
            return nil
        }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard !segments.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else { return nil }
        return segments
    }
}
