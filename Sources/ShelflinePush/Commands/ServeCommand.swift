import ArgumentParser
import Foundation
import ShelflineCore
import ShelflinePush
import ShelflineStageCLI

/// `shelfline-push serve`: the app's HTTP door to the registry (issue 27).
public struct ServeCommand: PushSubcommand {
    public static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the app's HTTP API: register/unregister tokens, read the current activity snapshots.",
        discussion: helpDiscussion("""
            Routes (all but /healthz need `Authorization: Bearer <secret>` from `shelfline-push devices add`):
              PUT    /v1/tokens/{token}       body {"activity": "import"|"beer-queue", "kind": "start"|"update"}
              DELETE /v1/tokens/{token}       only the device that registered the token may remove it
              GET    /v1/activities/{name}    import or beer-queue: <workspace>/activity/<name>.json
              GET    /healthz
            Wrong or missing auth: 401. Another device's token: 403. Bodies over 4 KiB: 413. Over 30 requests
            at once per device, then 1 a second (--rate-burst, --rate-per-second): 429 with Retry-After. Plain HTTP: put a TLS reverse proxy in
            front (docs/push.md). Prints `serving on http://HOST:PORT` once listening; one logfmt line per
            request on stderr (never a token or a secret).
            """))

    @OptionGroup public var common: CommonOptions

    @Option(name: .long, help: "HOST:PORT to listen on (port 0: any free port, printed).")
    public var listen = "127.0.0.1:8787"

    @Option(name: .long, help: "Requests a device may make at once (its token bucket's size).")
    public var rateBurst: Double = 30

    @Option(name: .long, help: "Requests a second a device's bucket refills at.")
    public var ratePerSecond: Double = 1

    public init() {}

    func execute(context: StageContext, workspace: Workspace) async throws {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port),
              colon != listen.startIndex else {
            throw ValidationError("--listen '\(listen)': expected HOST:PORT, e.g. 127.0.0.1:8787")
        }
        let host = String(listen[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard rateBurst >= 1, ratePerSecond > 0 else {
            throw ValidationError("--rate-burst must be at least 1 and --rate-per-second above 0")
        }
        let limits = ServeLimits(burst: rateBurst, requestsPerSecond: ratePerSecond)
        let router = ServeRouter(workspace: workspace, limits: limits, now: context.now, log: context.log)
        let server = try await ServeHTTPServer.start(host: host, port: port, router: router)
        // SIGTERM/SIGINT: stop accepting, finish the requests in flight, exit 0.
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { Task { await server.shutdown() } }
            source.resume()
            sources.append(source)
        }
        print("serving on http://\(listen[..<colon]):\(server.port)")
        fflush(nil)
        await server.wait()
        sources.forEach { $0.cancel() }
        context.log.event(["event": "stopped"])
    }
}
