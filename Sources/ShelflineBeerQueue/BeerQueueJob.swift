import Foundation
import ShelflineActivity
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// Where one beer-queue run reads the queue from.
public enum BeerQueueSource: Sendable, Equatable {
    /// A saved `memberQueues.php` page.
    case html(path: String)
    case json(path: String)
    /// A live `GET <host>/memberQueues.php` with the credentials file's cookie.
    case poll
}

/// One beer-queue run end to end: settings from `pipeline.json`'s `beerQueue`, read, render, report.
public struct BeerQueueJob: Sendable {
    public var config: BeerQueueConfig
    public var configPath: String
    public var workspace: Workspace
    public var historyLimit: Int

    /// What `run` throws first when `beerQueue` did not decode.
    var configError: ConfigError?

    public init(
        config section: JSONValue?, configPath: String, workspace: Workspace,
        historyLimit: Int = ActivityStore.defaultHistoryLimit
    ) {
        config = BeerQueueConfig()
        self.configPath = configPath
        self.workspace = workspace
        self.historyLimit = historyLimit
        do {
            config = try BeerQueueConfig.decode(section, configPath: configPath)
        } catch let error as ConfigError {
            configError = error
        } catch {
            configError = ConfigError(path: configPath, key: "beerQueue", expected: "\(error)")
        }
    }

    /// Runs once; nil in visitor mode. A page that could not be read marks a running activity
    /// offline, a login page ends it, and then each throws. Every text has the cookie redacted.
    public func run(source: BeerQueueSource, now: Date, userTriggered: Bool, log: Logfmt) async throws -> BeerQueueRenderer
        .Outcome?
    {
        if let configError { throw configError }
        if config.visitor == true {
            log.event(["activity": "beer-queue", "event": "skipped", "reason": "visitor mode"])
            return nil
        }
        let renderer = try makeRenderer()
        // A saved page may hold the cookie too (best effort here; a poll loads it strictly).
        var redactor = SecretRedactor()
        if source != .poll, let path = config.credentialsFile,
            let credentials = try? BeerQueueCredentials.load(path: (path as NSString).expandingTildeInPath)
        {
            redactor = SecretRedactor(cookie: credentials.cookie)
        }
        do {
            return try await observeAndRender(
                source: source, renderer: renderer, now: now, userTriggered: userTriggered,
                log: log, redactor: &redactor)
        } catch let error as BeerQueueError {
            throw error.redacting(redactor)
        }
    }

    func observeAndRender(
        source: BeerQueueSource, renderer: BeerQueueRenderer, now: Date, userTriggered: Bool, log: Logfmt,
        redactor: inout SecretRedactor
    ) async throws -> BeerQueueRenderer.Outcome {
        var pending: (any Error)?
        var observation = BeerQueueLifecycle.Observation.fetchFailed
        var skipped: [SkippedRow] = []
        let sourceName: String
        let read: () async throws -> BeerQueueReading
        var credentialsFile: String?
        switch source {
        case .html(let path), .json(let path):
            sourceName = path
            read = {
                source == .json(path: path)
                    ? try BeerQueueFile.read(path: path) : try BeerQueuePage.parse(try Self.readPage(path: path), source: path)
            }
        case .poll:
            let host = try validatedHost()
            let credentialsPath = try required(
                config.credentialsFile, key: "credentialsFile", what: "the path of a 0600 file holding the session cookie")
            // `~/…` as pipeline.json's example writes it.
            let credentials = try BeerQueueCredentials.load(path: (credentialsPath as NSString).expandingTildeInPath)
            redactor = SecretRedactor(cookie: credentials.cookie)
            let client = BeerQueueClient(host: host, credentials: credentials, timeoutSeconds: config.timeoutSeconds ?? 20)
            sourceName = client.pageURL
            credentialsFile = credentialsPath
            read = { try BeerQueuePage.parse(try await client.fetchPage(), source: client.pageURL) }
        }
        do {
            switch try await read() {
            case .queue(let beers, let rows): (observation, skipped) = (.queue(beers), rows)
            case .sessionExpired:
                observation = .sessionExpired
                pending = BeerQueueError.sessionExpired(credentialsFile: credentialsFile)
            }
        } catch let error as BeerQueueError {
            // Not a queue: a running activity is marked offline (never an `end`), then the error is thrown.
            pending = error
            // Every row counted, even on a page refused because all of them are malformed.
            if case .malformedRows(_, let rows) = error { skipped = rows }
        }
        if !redactor.secrets.isEmpty {
            // A server echoing the cookie never gets it into a snapshot or the report.
            observation = observation.mapTexts { redactor.redact($0) }
            skipped = skipped.map { SkippedRow(row: $0.row, reason: redactor.redact($0.reason)) }
        }
        let outcome = try renderer.render(observation, now: now, userTriggered: userTriggered)
        for setAside in outcome.setAside {
            log.error(
                "shelfline-render: warning: \(setAside.original) could not be read (\(setAside.reason)); "
                    + "set aside as \(setAside.movedTo) and rebuilt")
        }
        let report = BeerQueueReport(
            source: redactor.redact(sourceName), observation: observation, skipped: skipped,
            decision: outcome.decision,
            problem: pending.map { error in
                (error as? BeerQueueError)?.redacting(redactor).description ?? "\(error)"
            })
        try writeJSONFile(report, to: renderer.reportPath)
        if let state = outcome.snapshot?.contentState {
            log.event([
                "activity": "beer-queue", "event": "\(outcome.decision)", "queueCount": state.queueCount,
                "skippedRows": skipped.count,
            ])
        } else {
            log.event(["activity": "beer-queue", "event": "\(outcome.decision)", "skippedRows": skipped.count])
        }
        if let pending { throw pending }
        return outcome
    }

    /// Plain `http://` only to a loopback address: the cookie would otherwise cross the network in clear
    /// text. Returned without a trailing slash, as the client wants it.
    func validatedHost() throws -> String {
        let host = try required(config.host, key: "host", what: "the site's https:// origin")
        guard let url = URL(string: host), let origin = BeerQueueClient.Origin(url) else {
            throw ConfigError(
                path: configPath, key: "beerQueue.host",
                expected: "an https:// URL such as https://www.beerknurd.com, found '\(host)'")
        }
        if origin.scheme == "http" && !Loopback.isLoopback(origin.host) {
            throw ConfigError(
                path: configPath, key: "beerQueue.host",
                expected:
                    "https:// (plain http:// would send the session cookie in clear text; it is allowed only for a loopback address), found '\(host)'"
            )
        }
        return host.hasSuffix("/") ? String(host.dropLast()) : host
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

    /// Reads a saved page, never more than `maximumBytes` + 1 bytes. Invalid UTF-8 is repaired, not fatal.
    public static func readPage(path: String, maximumBytes: Int = BeerQueuePage.maximumBytes) throws -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw FileError.missingInput(path: path, reason: systemErrorMessage()) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw FileError.missingInput(path: path, reason: "not a regular file")
        }
        let tooLarge = BeerQueueError.unrecognisedPage(source: path, reason: "larger than \(maximumBytes) bytes")
        guard Int(info.st_size) <= maximumBytes else { throw tooLarge }
        let data: Data
        do {
            data = try handle.read(upToCount: maximumBytes + 1) ?? Data()
        } catch {
            throw FileError.io(path: path, reason: "read: \(error.localizedDescription)")
        }
        // The file may have grown since fstat.
        guard data.count <= maximumBytes else { throw tooLarge }
        return String(decoding: data, as: UTF8.self)
    }
}

/// `activity/beer-queue.report.json`: what the last run read and did, every row counted.
struct BeerQueueReport: Encodable {
    var source: String
    /// `queue`, `sessionExpired` or `unreadable`.
    var observed: String
    /// Listed + skipped.
    var rows: Int
    var beers: Int
    var skippedRows: Int
    var skipped: [SkippedRow]
    var event: String
    var problem: String?

    init(
        source: String, observation: BeerQueueLifecycle.Observation, skipped: [SkippedRow],
        decision: BeerQueueLifecycle.Decision, problem: String?
    ) {
        self.source = source
        (observed, beers) =
            switch observation {
            case .queue(let beers): ("queue", beers.count)
            case .sessionExpired: ("sessionExpired", 0)
            case .fetchFailed: ("unreadable", 0)
            }
        rows = beers + skipped.count
        skippedRows = skipped.count
        self.skipped = skipped
        event = "\(decision)"
        self.problem = problem
    }
}
