import APNsTestServer
import Foundation
import ShelflineActivity
import ShelflineCore
import ShelflinePush
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A clock tests move by hand; `sleep` advances it instead of waiting.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    private(set) var sleeps: [Double] = []

    init(_ start: Date = Date(timeIntervalSince1970: 1_760_000_000)) { current = start }

    var now: Date { lock.withLock { current } }
    func advance(_ seconds: Double) { lock.withLock { current = current.addingTimeInterval(seconds) } }

    var pushClock: PushClock {
        PushClock(
            now: { self.now },
            sleep: { seconds in
                self.lock.withLock {
                    self.sleeps.append(seconds)
                    self.current = self.current.addingTimeInterval(seconds)
                }
            })
    }
}

/// A workspace with a signing key, a loopback APNs, and helpers to emit snapshots and register tokens.
struct PushFixture {
    static let keyId = "ABC123DEFG"
    static let teamId = "TEAM123456"
    static let bundleId = "com.example.shelfline"

    let temp: TemporaryDirectory
    let workspace: Workspace
    let key: P256SigningKey
    let keyFile: String
    let caFile: String

    init(_ label: String) {
        temp = TemporaryDirectory(label)
        workspace = Workspace(root: temp.file("ws"))
        key = P256SigningKey.generate()
        keyFile = temp.write("AuthKey_\(Self.keyId).p8", key.pemRepresentation)
        chmod(keyFile, 0o600)
        caFile = temp.file("ca.pem")
    }

    var expectations: APNsTestServer.Expectations {
        .init(publicPoint: key.publicPoint, keyId: Self.keyId, teamId: Self.teamId, bundleId: Self.bundleId)
    }

    /// Starts a loopback APNs and writes its certificate to `caFile`.
    func server(_ responder: @escaping APNsTestServer.Responder = { _ in .ok }) async throws -> APNsTestServer {
        let server = try await APNsTestServer(expecting: expectations, responder: responder)
        _ = temp.write("ca.pem", server.certificatePEM)
        return server
    }

    /// `timeout`: a test whose APNs is down or untrusted passes a short one, since a request is only
    /// failed when its deadline passes (AsyncHTTPClient retries connecting until then).
    func apnsConfig(host: String, waitBudget: Double = 60, timeout: Double = 30) -> APNsConfig {
        APNsConfig(
            environment: "sandbox", host: host, keyFile: keyFile, keyId: Self.keyId, teamId: Self.teamId,
            bundleId: Self.bundleId, caFile: caFile, waitBudgetSeconds: waitBudget, concurrency: 8, timeoutSeconds: timeout)
    }

    /// `pipeline.json` for the executables: no stages, just `apns`.
    func writeConfig(host: String, waitBudget: Double = 60, timeout: Double = 30) throws -> String {
        let config = PipelineConfig(stages: [])
        var withAPNs = config
        withAPNs.apns = try JSONValue(encoding: apnsConfig(host: host, waitBudget: waitBudget, timeout: timeout))
        let data = try JSONEncoder.shelflinePretty.encode(withAPNs)
        return temp.write("pipeline.json", String(decoding: data, as: UTF8.self))
    }

    func settings(host: String, waitBudget: Double = 60, timeout: Double = 30) throws -> PushSettings {
        try PushSettings(apnsConfig(host: host, waitBudget: waitBudget, timeout: timeout), configPath: temp.file("pipeline.json"))
    }

    /// Emits a beer-queue snapshot through render's own store (history and latest).
    @discardableResult
    func emitBeerQueue(_ event: ActivityEvent, beers: [String], at timestamp: Int) throws -> ActivitySnapshot<
        BeerQueueAttributes, BeerQueueAttributes.ContentState
    > {
        let queued = beers.enumerated().map {
            QueuedBeer(id: "\($0.offset + 1)", name: $0.element, date: "Apr 08, 2025 @ 03:10:18pm")
        }
        let state = BeerQueueAttributes.ContentState(
            queueCount: queued.count, beers: queued, storeLocation: "Flying Saucer",
            lastUpdated: "\(timestamp)")
        let snapshot = ActivitySnapshot(
            attributesType: BeerQueueAttributes.typeName,
            attributes: BeerQueueAttributes(memberId: "42", storeId: "7"), contentState: state,
            event: event, timestamp: timestamp, staleDate: timestamp + 900,
            dismissalDate: event == .end ? timestamp + 600 : nil, alert: nil)
        try ActivityStore(workspace: workspace, name: PushActivity.beerQueue.rawValue).publish(snapshot)
        return snapshot
    }

    /// Emits an import snapshot.
    func emitImport(_ event: ActivityEvent, processed: Int, at timestamp: Int) throws {
        let state = CSVImportActivityAttributes.ContentState(
            progress: Double(processed) / 10, currentStep: "Looking up books…", booksProcessed: processed, totalBooks: 10,
            successCount: processed, duplicateCount: 0, failureCount: 0)
        let snapshot = ActivitySnapshot(
            attributesType: CSVImportActivityAttributes.typeName,
            attributes: CSVImportActivityAttributes(
                fileName: "export.csv", sessionId: UUID(uuidString: "00000000-0000-4000-8000-000000000001")!),
            contentState: state, event: event, timestamp: timestamp, staleDate: timestamp + 600,
            dismissalDate: event == .end ? timestamp + 1800 : nil, alert: nil)
        try ActivityStore(workspace: workspace, name: PushActivity.import.rawValue).publish(snapshot)
    }

    static func token(_ n: Int, bytes: Int = 32) -> String {
        String((0..<bytes).map { _ in String(format: "%02x", n % 256) }.joined())
    }

    func register(_ token: String, _ activity: PushActivity = .beerQueue, kind: TokenKind = .update) async throws {
        try await PushStore(workspace: workspace).register(
            try DeviceToken(token), activity: activity, kind: kind, now: Date(timeIntervalSince1970: 1_760_000_000))
    }

    /// A sender against `server` on a manual clock, logging into `lines`.
    func sender(_ server: APNsTestServer, clock: ManualClock, lines: LineLog = LineLog(), waitBudget: Double = 60) throws
        -> (PushSender, APNsTransport, ProviderToken)
    {
        let settings = try settings(host: server.host, waitBudget: waitBudget)
        let sender = PushSender(
            workspace: workspace, settings: settings, clock: clock.pushClock,
            log: Logfmt(sink: { lines.append($0) }))
        let token = ProviderToken(key: try settings.loadSigningKey(), keyId: Self.keyId, teamId: Self.teamId, now: { clock.now })
        return (sender, try APNsTransport(settings: settings), token)
    }

    /// One `send` in process; the error it ended with, if any.
    func send(
        _ server: APNsTestServer, clock: ManualClock = ManualClock(), lines: LineLog = LineLog(),
        waitBudget: Double = 60
    ) async throws -> (PushReport, (any Error)?) {
        let (sender, transport, token) = try sender(server, clock: clock, lines: lines, waitBudget: waitBudget)
        do {
            let report = try await sender.send(transport: transport, providerToken: token)
            await transport.shutdown()
            return (report, nil)
        } catch {
            await transport.shutdown()
            return (try readJSONFile(PushReport.self, from: sender.store.reportPath), error)
        }
    }

    var store: PushStore { PushStore(workspace: workspace) }
}

/// Log lines collected from a sender.
final class LineLog: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

extension PushReport {
    /// Every planned push ended in exactly one outcome.
    var outcomesAddUp: Bool { delivered + dropped + rejected + deferred == pushes }
}

extension Base64URL {
    /// Decodes base64url without padding (a JWT's parts).
    static func decode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
