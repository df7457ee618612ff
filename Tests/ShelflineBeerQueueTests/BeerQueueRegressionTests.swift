import ActivityTestSupport
import Foundation
import ShelflineActivity
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineBeerQueue

/// Regressions from issues 10 and 15 at the library level: rows, texts, state files, budget.
@Suite struct BeerQueueRegressionTests {
    let t0 = Date(timeIntervalSince1970: 1_760_000_000)

    func renderer(_ temp: TemporaryDirectory, maxUpdates: Int = 10, storeLocation: String = "Example Saucer") -> BeerQueueRenderer
    {
        BeerQueueRenderer(
            workspace: Workspace(root: temp.file("ws")), attributes: BeerQueueAttributes(memberId: "123456", storeId: "13888"),
            storeLocation: storeLocation, maxUpdatesPerHour: maxUpdates, staleAfterMinutes: 15)
    }

    static func page(_ rows: String) -> String {
        "<!DOCTYPE html><html><body><div id=\"queue\">\(rows)</div></body></html>"
    }

    static func row(_ name: String, cid: String?) -> String {
        "<h3 class=\"brewName\">\(name)<div class=\"brew_added_date\">Apr 08, 2025 @ 03:10:18pm</div></h3>"
            + (cid.map { "<a href=\"deleteQueuedBrew.php?cid=\($0)\">Remove</a>" } ?? "<span>no link</span>")
    }

    // MARK: - 15.9 one malformed row

    /// Each row's link is its own; a malformed row is skipped and counted, the valid ones shown.
    @Test(
        .bug(id: 15),
        arguments: [
            // One beer has no link (first, middle, last): never paired with the next beer's id.
            (page(row("A", cid: nil) + row("B", cid: "2") + row("C", cid: "3")), ["2", "3"], [1]),
            (page(row("A", cid: "1") + row("B", cid: nil) + row("C", cid: "3")), ["1", "3"], [2]),
            (page(row("A", cid: "1") + row("B", cid: "2") + row("C", cid: nil)), ["1", "2"], [3]),
            // A heading with no name (only whitespace, or only a control character).
            (page(row("A", cid: "1") + row("  ", cid: "2") + row("C", cid: "3")), ["1", "3"], [2]),
            (page(row("A", cid: "1") + row("&#0;", cid: "2")), ["1"], [2]),
            // Two valid beers around an invalid one (non-numeric cid).
            (page(row("A", cid: "1") + row("B", cid: "x9") + row("C", cid: "3")), ["1", "3"], [2]),
            // The same cid twice: the later row is not a second beer with the same identity.
            (page(row("A", cid: "1") + row("B", cid: "1")), ["1"], [2]),
            // Rows each in their own container: a link in the next container belongs to the next row.
            (
                page("<div class=\"row\">" + row("A", cid: nil) + "</div><div class=\"row\">" + row("B", cid: "2") + "</div>"),
                ["2"], [1]
            ),
            // A row with two different delete links is ambiguous.
            (page(row("A", cid: "1") + "<a href=\"deleteQueuedBrew.php?cid=7\">x</a>" + row("B", cid: "2")), ["2"], [1]),
        ])
    func malformedRowIsSkippedAndCounted(_ html: String, _ ids: [String], _ skippedRows: [Int]) throws {
        guard case .queue(let beers, let skipped) = try BeerQueuePage.parse(html, source: "inline") else {
            Issue.record("expected a queue")
            return
        }
        #expect(beers.map(\.id) == ids)
        #expect(skipped.map(\.row) == skippedRows, "\(skipped)")
        #expect(
            beers.count + skipped.count == html.components(separatedBy: "class=\"brewName\"").count - 1,
            "every row is either listed or skipped")
    }

    /// The JSON queue file follows the same rule as a page: bad entries skipped and counted.
    @Test(.bug(id: 15)) func malformedJSONEntrySkippedAndCounted() throws {
        let temp = TemporaryDirectory("render-json")
        let path = temp.write(
            "queue.json",
            #"[{"id": 1, "name": "A"}, {"name": "no id"}, "text", {"id": "1", "name": "Dup"}, {"id": 2, "name": " "}, {"id": 3, "name": "C (Draft)"}]"#
        )
        guard case .queue(let beers, let skipped) = try BeerQueueFile.read(path: path) else {
            Issue.record("expected a queue")
            return
        }
        #expect(beers.map(\.id) == ["1", "3"])
        #expect(beers.last?.name == "C")
        #expect(skipped.map(\.row) == [2, 3, 4, 5])
        let bad = temp.write("bad.json", #"[{"name": "no id"}, {"id": 2}]"#)
        let error = #expect(throws: BeerQueueError.self) { try BeerQueueFile.read(path: bad) }
        #expect(error.map { ExitStatus(for: $0) } == .dataError)
    }

    /// A page where every row is malformed is still an error (65), never an empty queue.
    @Test(
        .bug(id: 15),
        arguments: [
            page(row("A", cid: nil)),
            page(row("A", cid: nil) + row(" ", cid: "2") + row("C", cid: "abc")),
        ])
    func everyRowMalformedIsAnError(_ html: String) throws {
        let error = #expect(throws: BeerQueueError.self) { try BeerQueuePage.parse(html, source: "inline") }
        #expect(error.map { ExitStatus(for: $0) } == .dataError)
        #expect(error.map { "\($0)" }?.contains("malformed") == true)
    }

    // MARK: - 10: control characters

    /// NUL (raw or `&#0;`), other C0 and C1 controls and DEL never reach a snapshot, from any source.
    @Test(.bug(id: 10)) func controlCharactersNeverReachASnapshot() throws {
        let html = Self.page(
            "<h3 class=\"brewName\">Nul\u{0}Beer &#0;&#1;&#x1B;[31m &#x7F;&#x85;&#x9F;Stout\u{7}<div class=\"brew_added_date\">Apr\u{0} 08&#8;</div></h3>"
                + "<a href=\"deleteQueuedBrew.php?cid=1\">x</a>")
        guard case .queue(let beers, _) = try BeerQueuePage.parse(html, source: "inline") else {
            Issue.record("expected a queue")
            return
        }
        #expect(beers.first?.name == "NulBeer [31m Stout")
        let temp = TemporaryDirectory("render-controls")
        // Texts from a JSON file or the config take the same way out.
        let renderer = renderer(temp, storeLocation: "Saucer\u{0}\u{1F}\u{9B}")
        let outcome = try renderer.render(
            .queue(beers + [QueuedBeer(id: "2\u{0}", name: "Tab\tand\u{0}NUL", date: "\u{1}")]),
            now: t0, userTriggered: false)
        let data = try Data(contentsOf: URL(fileURLWithPath: renderer.store.snapshotPath))
        let text = String(decoding: data, as: UTF8.self)
        #expect(!text.contains("\\u0000") && !text.contains("\\u0001") && !text.contains("\\u001b"), "\(text)")
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) }, "\(text)")
        #expect(outcome.snapshot?.contentState.beers.last?.name == "Tab andNUL")
        #expect(outcome.snapshot?.contentState.storeLocation == "Saucer")
        try SnapshotContract.checkBeerQueue(data)
    }

    // MARK: - 10: cookie never in a message

    @Test(.bug(id: 10)) func cookieValueRedactedFromMessages() {
        let redactor = SecretRedactor(cookie: "PHPSESSID=abcdef123456; lang=en")
        let error = BeerQueueError.malformedRows(
            source: "https://x/memberQueues.php", skipped: [SkippedRow(row: 1, reason: "'Your session abcdef123456' has no link")]
        )
        let text = "\(error.redacting(redactor))"
        #expect(!text.contains("abcdef123456"))
        #expect(text.contains("<redacted>"))
        #expect(redactor.redact("lang en") == "lang en", "values too short to be secrets are left alone")
    }

    // MARK: - 15.6 corrupt state files

    /// Garbage in the snapshot, the budget or the history: set aside once as `*.corrupt-<time>`, rebuilt, and
    /// the next run (periodic or user-triggered) works.
    @Test(.bug(id: 15), arguments: ["beer-queue.json", "beer-queue.budget.json", "beer-queue.history.ndjson"])
    func corruptStateFileIsSetAsideAndRebuilt(_ name: String) throws {
        let temp = TemporaryDirectory("render-corrupt")
        let renderer = renderer(temp)
        let beerA = QueuedBeer(id: "1", name: "Alpha", date: "")
        let beerB = QueuedBeer(id: "2", name: "Beta", date: "")
        try renderer.render(.queue([beerA]), now: t0, userTriggered: false)
        temp.write("ws/activity/" + name, "{garbage\u{0}")
        var outcome = try renderer.render(.queue([beerA, beerB]), now: t0 + 360, userTriggered: false)
        #expect(outcome.setAside.count == 1)
        #expect(outcome.setAside.first?.movedTo == temp.file("ws/activity/\(name).corrupt-20251009T085920Z"))
        #expect(FileManager.default.fileExists(atPath: temp.file("ws/activity/\(name).corrupt-20251009T085920Z")))
        #expect(outcome.snapshot != nil, "the snapshot is rebuilt from this observation")
        // Healed: the next runs read their state again and set nothing aside.
        outcome = try renderer.render(.queue([beerB]), now: t0 + 720, userTriggered: true)
        #expect(outcome.setAside.isEmpty)
        #expect(outcome.decision == .update)
        outcome = try renderer.render(.queue([]), now: t0 + 1080, userTriggered: false)
        #expect(outcome.decision == .end)
        for line in try SnapshotContract.historyLines(renderer.store.historyPath) { try SnapshotContract.checkBeerQueue(line) }
    }

    /// A corrupt snapshot hides whether the phone shows an activity: an empty queue then ends it anyway.
    @Test(.bug(id: 15)) func corruptSnapshotThenEmptyQueueEnds() throws {
        let temp = TemporaryDirectory("render-corrupt-end")
        let renderer = renderer(temp)
        temp.write("ws/activity/beer-queue.json", "not json")
        let outcome = try renderer.render(.queue([]), now: t0, userTriggered: false)
        #expect(outcome.decision == .end)
        #expect(outcome.snapshot?.event == .end)
    }

    // MARK: - 15 minor: budget in the future

    /// Timestamps after now (the clock went back) count as now: they hold updates back for an hour at
    /// most, not until the clock catches up.
    @Test(.bug(id: 15)) func futureBudgetTimestampsClampedToNow() throws {
        let temp = TemporaryDirectory("render-budget-future")
        let renderer = renderer(temp, maxUpdates: 2)
        try renderer.render(.queue([QueuedBeer(id: "1", name: "A", date: "")]), now: t0, userTriggered: false)
        let future = Int(t0.timeIntervalSince1970) + 86_400
        temp.write("ws/activity/beer-queue.budget.json", "{\"periodicUpdates\": [\(future), \(future + 1)]}")
        let queue = { (n: Int) in (1...n).map { QueuedBeer(id: "\($0)", name: "Beer \($0)", date: "") } }
        #expect(try renderer.render(.queue(queue(2)), now: t0 + 60, userTriggered: false).decision == .deferred)
        #expect(try renderer.render(.queue(queue(3)), now: t0 + 60 + 3601, userTriggered: false).decision == .update)
        let budget = try String(contentsOfFile: renderer.budgetPath, encoding: .utf8)
        #expect(!budget.contains("\(future)"), "\(budget)")
    }

    // MARK: - 15.5 page limit while reading

    /// A page over the limit is refused from its size, without reading it; a FIFO is not a page (66).
    @Test(.bug(id: 15)) func savedPageOverLimitRefusedBeforeReading() throws {
        let temp = TemporaryDirectory("render-big")
        let path = temp.file("big.html")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 512 << 20)  // sparse: no disk or memory used
        try handle.close()
        let error = #expect(throws: BeerQueueError.self) { try BeerQueueJob.readPage(path: path) }
        #expect(error.map { "\($0)" }?.contains("larger than 8388608 bytes") == true)
        #expect(error.map { ExitStatus(for: $0) } == .dataError)

        let fifo = temp.file("fifo.html")
        #expect(mkfifo(fifo, 0o600) == 0)
        let fifoError = #expect(throws: FileError.self) { try BeerQueueJob.readPage(path: fifo) }
        #expect(fifoError.map { ExitStatus(for: $0) } == .noInput)
    }
}
