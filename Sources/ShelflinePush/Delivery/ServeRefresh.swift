import Foundation
import ShelflineCore

/// `POST /v1/beer-queue/refresh`: `make beer-queue`, user-triggered, running the executables beside
/// this one with serve's config, workspace, directory, environment and stderr. Not linking the poll in
/// keeps one path for cron and the app and no libcurl in `serve`. One at a time: two would poll one page.
public struct BeerQueueRefresher: Sendable {
    public var binDirectory: String
    /// `--config` for the children; nil: they find it as `serve` did (cwd, `SHELFLINE_CONFIG`).
    public var configPath: String?
    public var workspace: Workspace
    let turns = AsyncSemaphore(limit: 1)

    public init(binDirectory: String, configPath: String?, workspace: Workspace) {
        self.binDirectory = binDirectory
        self.configPath = configPath
        self.workspace = workspace
    }

    /// Poll + render, then send; the answer says which (table in docs/push.md).
    func refresh(log: Logfmt) async -> ServeResponse {
        await turns.acquire()
        let (render, send) = await runChildren()
        await turns.release()
        log.event([
            "event": "refresh", "render": render.map(String.init) ?? "not-started", "send": send.map(String.init) ?? "not-run",
        ])
        return Self.answer(
            render: render, send: send, event: renderedEvent(),
            report: send.flatMap {
                [0, 75].contains($0) ? try? readJSONFile(PushReport.self, from: PushStore(workspace: workspace).reportPath) : nil
            })
    }

    /// The exit statuses of render and send (nil: not started / not run).
    func runChildren() async -> (Int32?, Int32?) {
        var common = ["--workspace", workspace.root, "--quiet"]
        if let configPath { common += ["--config", configPath] }
        let render = await Self.run(binDirectory + "/shelfline-render", ["beer-queue", "--poll", "--user-triggered"] + common)
        // A failed poll still wrote what the phone must see (offline, or an end), so send runs after
        // it too; not after a crash or a bad command line.
        guard let render,
            [0, ExitStatus.dataError.rawValue, ExitStatus.tryLater.rawValue, ExitStatus.config.rawValue].contains(render)
        else {
            return (render, nil)
        }
        return (render, await Self.run(binDirectory + "/shelfline-push", ["send"] + common))
    }

    static func answer(render: Int32?, send: Int32?, event: String?, report: PushReport?) -> ServeResponse {
        switch render {
        case 0: break
        case ExitStatus.dataError.rawValue, ExitStatus.tryLater.rawValue:
            return ServeResponse(502, error: "the beer queue could not be fetched or read; the activity shows it offline")
        case ExitStatus.config.rawValue:
            return ServeResponse(503, error: "the beer-queue poll is not configured or its session expired (see the server log)")
        default:
            return ServeResponse(500, error: "internal error")
        }
        let fields =
            #""event":"\#(event ?? "unknown")","delivered":\#(report?.delivered ?? 0),"deferred":\#(report?.deferred ?? 0)"#
        switch send {
        case 0:
            return ServeResponse(200, json: #"{"status":"\#(event == "nothing" ? "unchanged" : "sent")",\#(fields)}"#)
        case ExitStatus.tryLater.rawValue:
            return ServeResponse(202, json: #"{"status":"queued",\#(fields)}"#)
        case ExitStatus.config.rawValue:
            return ServeResponse(503, error: "push is not configured or APNs refused the key (see the server log)")
        default:
            return ServeResponse(500, error: "internal error")
        }
    }

    /// `event` of the render's report: start, update, end, nothing, deferred.
    func renderedEvent() -> String? {
        struct Report: Decodable { var event: String? }
        let data = FileManager.default.contents(atPath: workspace.activityDirectory + "/beer-queue.report.json")
        return data.flatMap { try? JSONDecoder().decode(Report.self, from: $0) }?.event
    }

    /// The exit status (128 + the signal when killed), nil when it cannot start. Not Foundation's
    /// `Process`, whose `run` crashed in a server holding a thousand connections.
    static func run(_ executable: String, _ arguments: [String]) async -> Int32? {
        guard
            let child = try? ChildProcess.spawn(
                executable: executable, arguments: arguments,
                directory: FileManager.default.currentDirectoryPath,
                environment: ProcessInfo.processInfo.environment)
        else { return nil }
        return await withCheckedContinuation { continuation in
            // waitpid blocks: on a Dispatch thread, not the cooperative pool.
            DispatchQueue.global().async {
                switch child.wait() {
                case .exited(let status): continuation.resume(returning: status)
                case .signaled(let signal): continuation.resume(returning: 128 + signal)
                }
            }
        }
    }
}
