import APNsTestServer
import Foundation
import ShelflineActivity
import ShelflineCore
import ShelflinePush
import TestSupport
import TestTraits
import Testing

/// `shelfline run` with `apns` configured, through the built executables: the phone sees the
/// import move while it runs. Open Library's answers are held until the test releases them, so
/// "while lookup runs" is decided by the test, not by a clock.
@Suite(.offCooperativePool) struct LivePushEndToEndTests {
    static let rows = 24

    /// A Goodreads export of `rows` books, each with its own ISBN-13, and the editions Open Library
    /// holds for them (same title and author: matched by ISBN, none to review).
    /// A stand-in Open Library, and the same answers behind a server that holds each one until
    /// the test releases it through the gate (lookup's progress then moves when the test says).
    static func heldOpenLibrary(
        books: [String: FakeOpenLibraryServer.Book]
    ) async throws -> (library: FakeOpenLibraryServer, held: LoopbackHTTPServer, gate: AnswerGate) {
        let library = try await FakeOpenLibraryServer(books: books)
        let gate = AnswerGate()
        let held = try await LoopbackHTTPServer(handler: { request in
            await gate.pass()
            return library.answer(request)
        })
        return (library, held, gate)
    }

    static func export(rows: Int) -> (csv: String, books: [String: FakeOpenLibraryServer.Book]) {
        var text =
            "Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,Average Rating,Publisher,"
            + "Binding,Number of Pages,Year Published,Original Publication Year,Date Read,Date Added,Bookshelves,"
            + "Bookshelves with positions,Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Owned Copies\n"
        var books: [String: FakeOpenLibraryServer.Book] = [:]
        for index in 0..<rows {
            let isbn = FakeOpenLibraryServer.isbn13(body: String(format: "978%09d", 200_000 + index * 11))
            text +=
                "\(index + 1),Live Book \(index),Live Author \(index),,,=\"\",\"=\"\"\(isbn)\"\"\",0,4.0,Press,"
                + "Paperback,\(100 + index),2001,2001,,2024/01/01,to-read,,to-read,,,,0,0\n"
            books[isbn] = .init(
                key: "/books/OL\(index + 1)M", title: "Live Book \(index)", authors: ["Live Author \(index)"],
                work: "/works/OL\(index + 1)W")
        }
        return (text, books)
    }

    /// The shipped pipeline with lookup asking only `openLibrary` (one ISBN per request, two rows
    /// per chunk), render updating the snapshot at every change (no interval: what moves it is the
    /// test releasing answers, not a clock; issue 42), and `apns` when given.
    func config(_ fixture: PushFixture, name: String, openLibrary: String, apns: APNsConfig?) throws -> String {
        var config = try ConfigFile(contentsOf: ExecutableRunner.repositoryRoot + "/examples/pipeline.json")
        config[stage: "lookup"]?["parameters"] =
            [
                // Chunks of 2 rows: lookup's progress moves with every second answer.
                "sources": ["openlibrary"], "catalog": [] as [String], "chunkSize": 2,
                "openLibrary": [
                    "baseURL": openLibrary, "requestsPerSecond": 100, "batchSize": 1, "concurrency": 1,
                    "timeoutSeconds": 600, "maxRetries": 0,
                ],
            ] as [String: Any]
        config.editParameters(of: "render") { $0["minimumUpdateIntervalSeconds"] = 0 }
        if let apns {
            config.object["apns"] = try JSONSerialization.jsonObject(with: JSONEncoder.shelfline.encode(apns))
        }
        return try config.write(to: fixture.temp.file(name))
    }

    /// Waits, off the cooperative pool, for `condition` (another process brings it about); false
    /// after a generous backstop (120 s on a loaded machine) that only ends a test that would hang.
    func eventually(_ condition: @escaping @Sendable () -> Bool) async -> Bool {
        // Rechecked on a timer too: its conditions (processes in /proc, other files) have no one event.
        await ServeTests.waitOffPool(timeout: 120, recheckingEvery: 0.05, condition)
    }

    @Test(.bug(id: 26)) func theImportActivityMovesWhileTheImportRunsAndAnAPNsOutageChangesNothing() async throws {
        let fixture = PushFixture("live-import")
        let (csvText, books) = Self.export(rows: Self.rows)
        let csv = fixture.temp.write("export.csv", csvText)
        let (library, heldLibrary, gate) = try await Self.heldOpenLibrary(books: books)
        let log = DeliveryLog()
        let responder: APNsTestServer.Responder = { push in
            log.record(push, status: 200, released: gate.released)
            return .ok
        }
        let apns = try await fixture.server(responder)
        let restarted = ServerBox()
        defer {
            gate.release(10_000)
            Task {
                try? await apns.shutdown()
                try? await restarted.server?.shutdown()
                try? await heldLibrary.shutdown()
                try? await library.shutdown()
            }
        }

        // The outcome without pushes, for comparison.
        let reference = try await PushCommandTests.run(
            "shelfline",
            [
                "run", "--csv", csv, "--config",
                try config(fixture, name: "reference.json", openLibrary: library.baseURL, apns: nil),
                "--workspace", fixture.temp.file("reference"), "--quiet",
            ], in: fixture.temp.path)
        #expect(reference.status == 0, "\(reference)")

        var apnsConfig = fixture.apnsConfig(host: apns.host)
        apnsConfig.minimumUpdateIntervalSeconds = 0
        let config = try config(fixture, name: "pipeline.json", openLibrary: heldLibrary.baseURL, apns: apnsConfig)
        let updateToken = PushFixture.token(0xa1), startToken = PushFixture.token(0xb2)
        for (token, kind) in [(updateToken, "update"), (startToken, "start")] {
            let registered = try await PushCommandTests.run(
                "shelfline-push",
                [
                    "register", "--activity", "import", "--token", token.uppercased(), "--kind", kind,
                    "--workspace", fixture.workspace.root, "--config", config,
                ], in: fixture.temp.path)
            #expect(registered.status == 0, "\(registered)")
        }

        let output = fixture.temp.file("run.out")
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let run = ExecutableRunner.start(
            "shelfline", ["run", "--csv", csv, "--config", config, "--workspace", fixture.workspace.root],
            in: fixture.temp.path)
        run.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        run.standardError = run.standardOutput
        try run.run()
        defer { if run.isRunning { run.terminate() } }
        func runOutput() -> String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

        // `start` reaches the push-to-start token while lookup waits for its first answer.
        try #require(
            await eventually { log.delivered(to: startToken).contains { $0.push.event == "start" } }, "no start: \(runOutput())")
        #expect(gate.released == 0)

        // Updates reach the update token while lookup runs, each further along.
        var progress = log.delivered(to: updateToken).last?.progress ?? -1
        for _ in 0..<3 {
            gate.release(Self.rows / 6)
            let before = progress
            try #require(
                await eventually { (log.delivered(to: updateToken).last?.progress ?? -1) > before },
                "no update while lookup ran: \(heldLibrary.requests.map(\.uri)) released \(gate.released) \(runOutput().suffix(600))"
            )
            progress = log.delivered(to: updateToken).last?.progress ?? progress
        }

        // APNs stops mid-import; the import goes on (two more snapshots), the worker finds no one there.
        try await apns.shutdown()
        let deliveredBeforeOutage = log.delivered(to: updateToken).count
        let atOutage = try Self.timestamps(fixture.workspace).last ?? 0
        for missed in 1...2 {
            gate.release(Self.rows / 6)
            let workspace = fixture.workspace
            try #require(
                await eventually { ((try? Self.timestamps(workspace)) ?? []).filter { $0 > atOutage }.count >= missed },
                "render stopped during the outage")
        }
        let watchLog = fixture.store.directory + "/watch.log"
        try #require(
            await eventually { ((try? String(contentsOfFile: watchLog, encoding: .utf8)) ?? "").contains("status=network") },
            "the worker never tried during the outage")

        // APNs back (same host, same certificate): what goes out is the state of the moment, not
        // the states it missed — at most one of them (the newest when the worker's pass began).
        let atRecovery = try Self.timestamps(fixture.workspace).last ?? 0
        #expect(log.delivered(to: updateToken).count == deliveredBeforeOutage, "nothing delivered while APNs was down")
        restarted.server = try await bindingAgain {
            try await APNsTestServer(
                expecting: fixture.expectations, port: apns.port, identity: apns.identity, responder: responder)
        }
        try #require(
            await eventually { log.delivered(to: updateToken).count > deliveredBeforeOutage }, "nothing after the outage")

        gate.release(10_000)
        try #require(await eventually { !run.isRunning }, "the import never finished: \(runOutput())")
        #expect(run.terminationStatus == 0, "\(runOutput())")

        // What the phone got: updates with progress never going back and timestamps strictly
        // increasing, several while lookup ran, and the end last, equal to activity/import.json.
        let store = fixture.workspace.activityDirectory + "/import.json"
        let delivered = log.delivered(to: updateToken)
        let missedAndSent = delivered.filter { ($0.push.timestamp ?? 0) > atOutage && ($0.push.timestamp ?? 0) <= atRecovery }
        #expect(missedAndSent.count <= 1, "a backlog was replayed: \(missedAndSent.map(\.push.timestamp))")
        let received = apns.received + (restarted.server?.received ?? [])
        #expect(received.allSatisfy { $0.problems.isEmpty }, "\(received.map(\.problems))")
        let watched = (try? String(contentsOfFile: watchLog, encoding: .utf8)) ?? ""
        #expect(delivered.last?.push.event == "end", "\(delivered.map(\.push.event)) \(runOutput().suffix(1500)) \(watched)")
        #expect(delivered.dropLast().allSatisfy { $0.push.event == "update" }, "\(delivered.map(\.push.event))")
        #expect(delivered.filter { $0.releasedWhenSent < Self.rows }.count >= 3, "updates while lookup ran")
        let timestamps = delivered.compactMap(\.push.timestamp)
        #expect(zip(timestamps, timestamps.dropFirst()).allSatisfy { $0 < $1 }, "\(timestamps)")
        let progresses = delivered.map(\.progress)
        #expect(zip(progresses, progresses.dropFirst()).allSatisfy { $0 <= $1 }, "\(progresses)")
        let snapshot = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: store))) as? [String: Any])
        let end = try #require(delivered.last)
        let endBody = try #require(try JSONSerialization.jsonObject(with: Data(end.push.body)) as? NSDictionary)
        #expect(endBody == (snapshot["apns"] as? NSDictionary), "the end is import.json's")
        #expect(log.delivered(to: startToken).map(\.push.event) == ["start"])

        // The outage changed nothing in the import.
        for file in ["library/library.ndjson.gz", "runs/latest/merge-report.json"] {
            #expect(
                FileManager.default.contents(atPath: fixture.workspace.root + "/" + file)
                    == FileManager.default.contents(atPath: fixture.temp.file("reference/" + file)), "\(file) differs")
        }
    }

    /// The timestamps of the import activity's history, oldest first.
    static func timestamps(_ workspace: Workspace) throws -> [Int] {
        let history = try String(contentsOfFile: workspace.activityDirectory + "/import.history.ndjson", encoding: .utf8)
        return history.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["timestamp"] as? Int
        }
    }
}

/// The loopback APNs started again after the outage.
final class ServerBox: @unchecked Sendable {
    var server: APNsTestServer?
}

/// Holds each request until the test has released that many.
final class AnswerGate: @unchecked Sendable {
    private let lock = NSLock()
    private var releasedCount = 0
    private var arrived = 0
    private var waiting: [(number: Int, continuation: CheckedContinuation<Void, Never>)] = []

    var released: Int { lock.withLock { releasedCount } }

    func pass() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now: Bool = lock.withLock {
                arrived += 1
                if arrived <= releasedCount { return true }
                waiting.append((arrived, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    func release(_ count: Int) {
        let ready = lock.withLock {
            releasedCount += count
            let ready = waiting.filter { $0.number <= releasedCount }
            waiting.removeAll { $0.number <= releasedCount }
            return ready
        }
        for waiter in ready { waiter.continuation.resume() }
    }
}

/// Every push the loopback APNs answered, with the answer and how many lookup answers had been
/// released when it came.
final class DeliveryLog: @unchecked Sendable {
    struct Entry {
        var push: ReceivedPush
        var status: Int
        var releasedWhenSent: Int
        var contentState: [String: Any] {
            let object = try? JSONSerialization.jsonObject(with: Data(push.body)) as? [String: Any]
            return (object?["aps"] as? [String: Any])?["content-state"] as? [String: Any] ?? [:]
        }
        var progress: Double { contentState["progress"] as? Double ?? -1 }
    }

    private let lock = NSLock()
    private var entries: [Entry] = []

    func record(_ push: ReceivedPush, status: Int, released: Int) {
        lock.withLock { entries.append(Entry(push: push, status: status, releasedWhenSent: released)) }
    }

    /// What `token` was given, each push once: a push whose answer was lost (APNs shut down after
    /// answering) is sent again with the same `apns-id`, which the phone ignores as not newer.
    func delivered(to token: String) -> [Entry] {
        lock.withLock {
            var seen = Set<String>()
            return entries.filter {
                $0.push.token == token && $0.status == 200 && seen.insert($0.push.headers["apns-id"] ?? "").inserted
            }
        }
    }
}
