import ArgumentParser
import Foundation
import ShelflineCore
import ShelflinePush
import ShelflineStageCLI

#if canImport(Glibc)
    import Glibc
#endif

/// `shelfline-push serve`: the app's HTTP door to the registry.
struct ServeCommand: PushSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract:
            "Serve the app's HTTP API: register/unregister tokens, refresh the beer queue, read the current activity snapshots.",
        discussion: helpDiscussion(
            """
            Routes (all but /healthz need `Authorization: Bearer <secret>` from `shelfline-push devices add`):
              PUT    /v1/tokens/{token}       body {"activity": "import"|"beer-queue", "kind": "start"|"update"}
              DELETE /v1/tokens/{token}       only the device that registered the token may remove it
              POST   /v1/beer-queue/refresh   poll + render (--user-triggered) + send, as `make beer-queue`:
                                              200 sent, 202 queued for the next send, 502 poll failed, 503 not configured
              GET    /v1/activities/{name}    import or beer-queue: <workspace>/activity/<name>.json
              GET    /healthz
            Wrong or missing auth: 401. Another device's token: 403. Bodies over 4 KiB: 413. Over 30 requests
            at once per device, then 1 a second (--rate-burst, --rate-per-second): 429 with Retry-After; refreshes
            also 3 at once, then 3 a minute (--refreshes-per-minute). A request not in full within --request-timeout
            seconds of its first byte: 408 and closed; a connection idle for --idle-timeout seconds: closed.
            HTTPS with --tls-cert and --tls-key (PEM); else plain HTTP behind a TLS reverse proxy (docs/push.md).
            Prints `serving on http://HOST:PORT` (https) once listening; one logfmt line per request on stderr
            (never a token or a secret).
            """))

    @OptionGroup var common: CommonOptions

    @Option(name: .long, help: "HOST:PORT to listen on (port 0: any free port, printed).")
    var listen = "127.0.0.1:8787"

    @Option(name: .long, help: "Requests a device may make at once (its token bucket's size).")
    var rateBurst: Double = 30

    @Option(name: .long, help: "Requests a second a device's bucket refills at.")
    var ratePerSecond: Double = 1

    @Option(name: .long, help: "Beer-queue refreshes a device may make a minute (also its bucket's size).")
    var refreshesPerMinute: Double = 3

    @Option(name: .long, help: "Seconds a keep-alive connection may sit idle between requests.")
    var idleTimeout: Double = 60

    @Option(name: .long, help: "Seconds a request's head and body may take to arrive after its first byte.")
    var requestTimeout: Double = 10

    @Option(
        name: .long,
        help: "Connections open at once; beyond it the oldest idle one is closed (default: the descriptor limit less 256).")
    var maxConnections: Int?

    @Option(name: .long, help: "Serve HTTPS with this PEM certificate chain (leaf first); needs --tls-key.")
    var tlsCert: String?

    @Option(name: .long, help: "The PEM private key of --tls-cert.")
    var tlsKey: String?

    /// `--listen` as host and port, nil when it is not HOST:PORT.
    var address: (host: String, port: Int)? {
        guard let colon = listen.lastIndex(of: ":"), colon != listen.startIndex,
            let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port)
        else { return nil }
        return (String(listen[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port)
    }

    /// Documented in docs/push.md: a duration beyond its range would overflow a timer's nanoseconds.
    static let ranges: [(name: String, range: ConfigLimits.Range)] = [
        ("--rate-burst", .within(1, 1_000_000)),
        ("--rate-per-second", .within(0.001, 1_000_000)),
        ("--refreshes-per-minute", .within(1, 10_000)),
        ("--idle-timeout", ConfigLimits.Range(exclusiveMinimum: 0, maximum: 86_400)),
        ("--request-timeout", ConfigLimits.Range(exclusiveMinimum: 0, maximum: 3600)),
    ]

    func validate() throws {
        guard address != nil else { throw ValidationError("--listen '\(listen)': expected HOST:PORT, e.g. 127.0.0.1:8787") }
        let values = [rateBurst, ratePerSecond, refreshesPerMinute, idleTimeout, requestTimeout]
        for ((name, range), value) in zip(Self.ranges, values) where !(value.isFinite && range.allows(value)) {
            throw ValidationError("\(name) \(value): expected \(range.text)")
        }
        if let maxConnections, !(1...1_000_000).contains(maxConnections) {
            throw ValidationError("--max-connections \(maxConnections): expected 1 to 1000000")
        }
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
    }

    func execute(context: StageContext, workspace: Workspace) async throws {
        guard let (host, port) = address else { throw ValidationError("--listen '\(listen)': expected HOST:PORT") }
        // A devices file others could write is refused before serving (78), as on every request.
        _ = try PushStore(workspace: workspace).readDevices()
        Self.raiseDescriptorLimit()
        var limits = ServeLimits.defaults
        limits.burst = rateBurst
        limits.requestsPerSecond = ratePerSecond
        limits.refreshBurst = refreshesPerMinute
        limits.refreshesPerSecond = refreshesPerMinute / 60
        limits.idleTimeoutSeconds = idleTimeout
        limits.requestTimeoutSeconds = requestTimeout
        if let maxConnections { limits.maxConnections = maxConnections }
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let refresher = BeerQueueRefresher(
            binDirectory: (executable as NSString).deletingLastPathComponent,
            configPath: context.configPath.hasPrefix("(") ? nil : context.configPath, workspace: workspace)
        let router = ServeRouter(workspace: workspace, limits: limits, now: context.now, log: context.log, refresher: refresher)
        let tls = try tlsCert.map { try ServeHTTPServer.tlsContext(certificateFile: $0, keyFile: tlsKey ?? "") }
        let server: ServeHTTPServer
        do {
            server = try await ServeHTTPServer.start(host: host, port: port, router: router, tls: tls)
        } catch {
            throw PushError.cannotListen(address: listen, reason: "\(error)")
        }
        if tls == nil, !Loopback.isLoopback(host) {
            // Said once, on stderr: bearer secrets and tokens would cross the network in clear.
            FileHandle.standardError.write(
                Data(
                    ("shelfline-push serve: warning: listening on \(listen) without TLS: device secrets "
                        + "and tokens cross the network in clear; add --tls-cert/--tls-key or put a TLS reverse proxy in front (docs/push.md)\n")
                        .utf8))
        }
        let url = "\(tls == nil ? "http" : "https")://\(listen[..<(listen.lastIndex(of: ":") ?? listen.endIndex)]):\(server.port)"
        let signals = GracefulShutdownSignals([SIGTERM, SIGINT]) { Task { await server.shutdown() } }
        // Printed once the signals are trapped: a SIGTERM after this line is a graceful stop.
        print("serving on \(url)")
        fflush(nil)
        await server.wait()
        signals.cancel()
        context.log.event(["event": "stopped"])
    }

    /// Each connection is a descriptor (systemd's default soft limit is 1,024).
    static func raiseDescriptorLimit() {
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        setrlimit(resource, &limit)
    }
}
