import Foundation
import ShelflineCore

/// Where one beer-queue run reads the queue from.
public enum BeerQueueSource: Sendable, Equatable {
    /// A saved `memberQueues.php` page.
    case html(path: String)
    /// A JSON queue file (`BeerQueueFile`).
    case json(path: String)
    /// A live `GET <host>/memberQueues.php` with the credentials file's cookie.
    case poll
}

/// One beer-queue run end to end, shared by `shelfline-render beer-queue` and the orchestrator:
/// settings from `pipeline.json`'s `beerQueue`, read the source, render, report problems.
public struct BeerQueueJob: Sendable {
    public var config: BeerQueueConfig
    public var configPath: String
    public var workspace: Workspace
    public var historyLimit: Int

    public init(config: BeerQueueConfig?, configPath: String, workspace: Workspace,
                historyLimit: Int = RenderParameters.defaultHistoryLimit) {
        self.config = config ?? Self.emptyConfig
        self.configPath = configPath
        self.workspace = workspace
        self.historyLimit = historyLimit
    }

    /// Runs once. Returns nil in visitor mode (no activity at all). A page that could not be
    /// fetched or read marks a running activity offline and then throws; a login page ends the
    /// activity and then throws `sessionExpired` so the user renews the cookie.
    public func run(source: BeerQueueSource, now: Date, userTriggered: Bool, log: Logfmt) async throws -> BeerQueueRenderer.Outcome? {
        if config.visitor == true {
            log.event(["activity": "beer-queue", "event": "skipped", "reason": "visitor mode"])
            return nil
        }
        let renderer = try makeRenderer()
        var pending: (any Error)?
        let observation: BeerQueueLifecycle.Observation
        switch source {
        case .html(let path):
            observation = .init(try BeerQueuePage.parse(try Self.readPage(path: path), source: path))
            if observation == .sessionExpired { pending = RenderError.sessionExpired(credentialsFile: nil) }
        case .json(let path):
            observation = .init(try BeerQueueFile.read(path: path))
            if observation == .sessionExpired { pending = RenderError.sessionExpired(credentialsFile: nil) }
        case .poll:
            let host = try required(config.host, key: "host", what: "the site's https:// origin")
            let credentialsPath = try required(config.credentialsFile, key: "credentialsFile", what: "the path of a 0600 file holding the session cookie")
            // `~/…` as pipeline.json's example writes it (expanded against the user's home directory).
            let credentials = try BeerQueueCredentials.load(path: (credentialsPath as NSString).expandingTildeInPath)
            let client = BeerQueueClient(host: host, credentials: credentials, timeoutSeconds: config.timeoutSeconds ?? 20)
            do {
                let page = try await client.fetchPage()
                observation = .init(try BeerQueuePage.parse(page, source: client.pageURL))
                if observation == .sessionExpired { pending = RenderError.sessionExpired(credentialsFile: credentialsPath) }
            } catch let error as RenderError {
                // Unreachable, timed out, HTTP error or an unreadable page: never an `end`.
                observation = .fetchFailed
                pending = error
            }
        }
        let outcome = try renderer.render(observation, now: now, userTriggered: userTriggered)
        var fields: KeyValuePairs<String, Any> = ["activity": "beer-queue", "event": "\(outcome.decision)"]
        if let state = outcome.snapshot?.contentState {
            fields = ["activity": "beer-queue", "event": "\(outcome.decision)", "queueCount": state.queueCount]
        }
        log.event(fields)
        if let pending { throw pending }
        return outcome
    }

    /// `BeerQueueConfig` with every setting absent (core gives it no public memberwise init).
    static var emptyConfig: BeerQueueConfig {
        // A fixed, valid literal: this decode cannot fail.
        try! JSONDecoder().decode(BeerQueueConfig.self, from: Data("{}".utf8))
    }

    func makeRenderer() throws -> BeerQueueRenderer {
        let memberId = try required(config.memberId, key: "memberId", what: "the member's id (or set beerQueue.visitor to true)")
        let storeId = try required(config.storeId, key: "storeId", what: "the store's id")
        return BeerQueueRenderer(
            workspace: workspace, attributes: BeerQueueAttributes(memberId: memberId, storeId: storeId),
            storeLocation: config.storeLocation ?? "",
            maxUpdatesPerHour: config.maxUpdatesPerHour ?? BeerQueueRenderer.defaultMaxUpdatesPerHour,
            staleAfterMinutes: config.staleAfterMinutes ?? BeerQueueRenderer.defaultStaleAfterMinutes,
            historyLimit: historyLimit)
    }

    func required(_ value: String?, key: String, what: String) throws -> String {
        guard let value, !value.isEmpty else {
            throw ConfigError(path: configPath, key: "beerQueue.\(key)", expected: "required: \(what)")
        }
        return value
    }

    /// Reads a saved page; missing → 66, too large → 65. Invalid UTF-8 is repaired, not fatal.
    static func readPage(path: String) throws -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
              let data = FileManager.default.contents(atPath: path) else {
            throw FileError.missingInput(path: path, reason: "no such file or not readable")
        }
        guard data.count <= BeerQueuePage.maximumBytes else {
            throw RenderError.unrecognisedPage(source: path, reason: "larger than \(BeerQueuePage.maximumBytes) bytes")
        }
        return String(decoding: data, as: UTF8.self)
    }
}

extension BeerQueueLifecycle.Observation {
    init(_ reading: BeerQueueReading) {
        switch reading {
        case .queue(let beers): self = .queue(beers)
        case .sessionExpired: self = .sessionExpired
        }
    }
}
