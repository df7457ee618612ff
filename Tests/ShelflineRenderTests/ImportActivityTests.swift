import ActivityTestSupport
import Foundation
import ShelflineActivity
import ShelflineCore
import ShelflineRender
import TestSupport
import Testing

@Suite struct ImportActivityTests {
    let t0 = Date(timeIntervalSince1970: 1_760_000_000)

    func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

    /// A whole import as the orchestrator sees it, refreshed every so often: every rule of the
    /// issue's import activity along the way, and every snapshot checked against the phone structs.
    @Test(.bug(id: 6)) func importActivityFollowsTheRunDirectoryThroughAWholeImport() throws {
        let temp = TemporaryDirectory("render-import")
        let workspace = Workspace(root: temp.file("ws"))
        let run = temp.file("ws/runs/run-a1b2c3")
        try Workspace.makeDirectory(run)
        temp.write("input/goodreads_library_export.csv", String(repeating: "x", count: 1234))
        let renderer = ImportActivityRenderer(workspace: workspace, files: .pipelineDefaults)

        // Nothing yet: the import has begun, so the activity starts.
        var result = try renderer.refresh(
            runDirectory: run, now: at(0), sourceFile: temp.file("input/goodreads_library_export.csv"))
        #expect(result.emitted == [.start])
        #expect(result.contentState.currentStep == "Reading file…")
        let start = try renderer.store.latest(ImportActivityRenderer.Snapshot.self)
        #expect(start?.attributes.fileName == "goodreads_library_export.csv")
        #expect(start?.attributes.fileSize == 1234)

        // Parse finished 1 s later: counts changed, but within 2 s of the start → nothing yet.
        try Fixtures.write(Fixtures.parseReport(rowsRead: 100, rejected: 4), to: run + "/parse-report.json")
        result = try renderer.refresh(runDirectory: run, now: at(1))
        #expect(result.emitted.isEmpty)
        result = try renderer.refresh(runDirectory: run, now: at(2.5))
        #expect(result.emitted == [.update])
        #expect(result.contentState.totalBooks == 100)
        #expect(result.contentState.failureCount == 4)
        #expect(result.contentState.currentStep == "Finding duplicates…")

        // Unchanged counts never emit, however long it has been.
        result = try renderer.refresh(runDirectory: run, now: at(30))
        #expect(result.emitted.isEmpty)

        // Dedupe and lookup progress (dedupe's report read tolerantly, counts at any depth).
        temp.write(
            "ws/runs/run-a1b2c3/dedupe-report.json",
            #"{"records": 96, "counts": {"new": 80, "inLibrary": 10, "duplicateInFile": 6}}"#)
        let progress = StageProgress(
            stage: "lookup", processed: 30, total: 96, counts: ["matchedByIsbn": 25, "notEnriched": 2, "needsReview": 3],
            currentTitle: "Piranesi", currentAuthor: "Susanna   Clarke",
            startedAt: at(31).timeIntervalSince1970, updatedAt: at(41).timeIntervalSince1970)
        try Fixtures.write(progress, to: run + "/lookup-progress.json")
        result = try renderer.refresh(runDirectory: run, now: at(41))
        #expect(result.emitted == [.update])
        let looking = result.contentState
        #expect(looking.currentStep == "Looking up books…")
        #expect(looking.booksProcessed == 4 + 30, "rejected rows plus rows past lookup")
        #expect(looking.duplicateCount == 6)
        #expect(looking.failureCount == 4, "rejected rows only: not-enriched books still reach the library (issue 13.5)")
        #expect(looking.successCount == 30 - 6)
        #expect(looking.currentBookTitle == "Piranesi")
        #expect(looking.currentBookAuthor == "Susanna Clarke")
        #expect(looking.progress > 0.1 && looking.progress < 0.95)
        // The measured rate (3 rows/s) gives the estimate: 41 s so far + 66 rows left / 3 per s.
        let estimate = try renderer.store.latest(ImportActivityRenderer.Snapshot.self)?.attributes.estimatedDuration
        #expect(estimate == .some(63.0), "41 s so far + 22 s to go")

        // More progress within 2 s: throttled unless forced.
        var later = progress
        later.processed = 36
        later.updatedAt = at(42).timeIntervalSince1970
        try Fixtures.write(later, to: run + "/lookup-progress.json")
        #expect(try renderer.refresh(runDirectory: run, now: at(42)).emitted.isEmpty)
        #expect(try renderer.refresh(runDirectory: run, now: at(42), force: true).emitted == [.update])

        // Lookup done, merge running.
        later.processed = 96
        later.finished = true
        try Fixtures.write(later, to: run + "/lookup-progress.json")
        temp.write(
            "ws/runs/run-a1b2c3/lookup-report.json",
            #"{"counts": {"matchedByIsbn": 80, "matchedBySearch": 5, "needsReview": 3, "notEnriched": 8}}"#)
        result = try renderer.refresh(runDirectory: run, now: at(60))
        #expect(result.emitted == [.update])
        #expect(result.contentState.currentStep == "Saving to library…")
        #expect(result.contentState.booksProcessed == 100)
        #expect(result.contentState.failureCount == 4)
        #expect(result.contentState.currentBookTitle == nil)

        // Merge report: end at once (no 2 s wait), with the final tallies and the report page.
        let merge = Fixtures.mergeReport(
            added: 70, updated: 20, duplicates: 6, rejected: 4, needsReview: 3, notEnriched: 8,
            matchedByIsbn: 85)
        try Fixtures.write(merge, to: run + "/merge-report.json")
        result = try renderer.refresh(runDirectory: run, now: at(60.5))
        #expect(result.emitted == [.end])
        #expect(result.contentState.successCount == 90)
        #expect(result.contentState.duplicateCount == 6)
        #expect(result.contentState.failureCount == 4, "rejected only, not the 8 not enriched")
        #expect(result.contentState.booksProcessed == 100 && result.contentState.totalBooks == 100)
        #expect(result.contentState.progress == 1)
        #expect(result.contentState.currentStep == "Import complete · 3 to review")
        #expect(result.reportPath == run + "/report.html")
        let page = try ImportReportPageReading(path: run + "/report.html")
        #expect(page.title == "goodreads_library_export.csv", "the file refresh was given, not the run's copy")
        #expect(page.rowsRead == 100 && page.libraryBooks == 110, "\(page)")
        #expect(page.outcomes == ["added": 70, "updated": 20, "duplicateInFile": 6, "rejected": 4], "\(page)")
        #expect(page.charts["enrichment"]?["Matched by ISBN"] == 85 && page.charts["enrichment"]?["Not enriched"] == 8, "\(page)")
        let end = try #require(try renderer.store.latest(ImportActivityRenderer.Snapshot.self))
        // The update before it was written in the same second (60): the end is dated a second
        // later, so ActivityKit never takes it for an older state (issue 26).
        #expect(end.timestamp == unix(at(60.5)) + 1)
        #expect(end.apns.aps.dismissalDate == end.timestamp + 30 * 60)
        #expect(end.apns.aps.staleDate == nil)
        #expect(end.attributes.estimatedDuration == 61)  // measured: started at 0, ended at 60.5 (rounded)

        // Ended: a call that finds the same tallies emits nothing; a merge rerun (review decisions)
        // is followed by the page and by a corrected `end` (issue 23: one count of rows to review).
        #expect(try renderer.refresh(runDirectory: run, now: at(75)).emitted.isEmpty)
        var reviewed = Fixtures.mergeReport(
            added: 71, updated: 20, duplicates: 6, rejected: 4, needsReview: 2, notEnriched: 7,
            matchedByIsbn: 86)
        reviewed.reviewOpen = 1
        try Fixtures.write(reviewed, to: run + "/merge-report.json")
        let after = try renderer.refresh(runDirectory: run, now: at(90))
        #expect(after.emitted == [.end])
        #expect(after.contentState.currentStep == "Import complete · 1 to review")
        #expect(after.reportPath == run + "/report.html")
        #expect(try String(contentsOfFile: run + "/report.html", encoding: .utf8).contains("Added: 71"))
        #expect(try renderer.refresh(runDirectory: run, now: at(95)).emitted.isEmpty)

        // Every snapshot of the history, in order, against the phone's structs.
        let lines = try SnapshotContract.historyLines(renderer.store.historyPath)
        var events: [String] = []
        var sessions = Set<UUID>()
        for line in lines {
            let (attributes, _, event) = try SnapshotContract.checkImport(line)
            events.append(event)
            sessions.insert(attributes.sessionId)
        }
        #expect(events == ["start", "update", "update", "update", "update", "end", "end"])
        #expect(sessions == [ImportActivityRenderer.sessionId(runDirectory: run)])
        try SnapshotContract.checkImport(Data(contentsOf: URL(fileURLWithPath: renderer.store.snapshotPath)))
    }

    func unix(_ date: Date) -> Int { Int(date.timeIntervalSince1970) }

    @Test(.bug(id: 6)) func sessionIdStablePerRunAndResolvesLatest() throws {
        let temp = TemporaryDirectory("render-session")
        try Workspace.makeDirectory(temp.file("runs/r1"))
        try Workspace.makeDirectory(temp.file("runs/r2"))
        try FileManager.default.createSymbolicLink(atPath: temp.file("runs/latest"), withDestinationPath: "r2")
        let one = ImportActivityRenderer.sessionId(runDirectory: temp.file("runs/r1"))
        #expect(one == ImportActivityRenderer.sessionId(runDirectory: temp.file("runs/r1/")))
        #expect(one == ImportActivityRenderer.sessionId(runDirectory: temp.file("runs/./r1")))
        #expect(one != ImportActivityRenderer.sessionId(runDirectory: temp.file("runs/r2")))
        #expect(
            ImportActivityRenderer.sessionId(runDirectory: temp.file("runs/latest"))
                == ImportActivityRenderer.sessionId(runDirectory: temp.file("runs/r2")))
        #expect(one.uuidString.count == 36)
    }

    /// A run that is already merged when first seen: a `start` then its `end`, so a replay is whole;
    /// a second import afterwards starts its own activity.
    @Test(.bug(id: 6)) func finishedRunStartsAndEndsThenNextRunStartsAgain() throws {
        let temp = TemporaryDirectory("render-finished")
        let workspace = Workspace(root: temp.file("ws"))
        let renderer = ImportActivityRenderer(workspace: workspace, files: .pipelineDefaults)
        for name in ["first", "second"] {
            let run = temp.file("ws/runs/\(name)")
            try Workspace.makeDirectory(run)
            try Fixtures.write(Fixtures.parseReport(rowsRead: 10, rejected: 1), to: run + "/parse-report.json")
            try Fixtures.write(
                Fixtures.mergeReport(
                    added: 9, updated: 0, duplicates: 0, rejected: 1, needsReview: 0, notEnriched: 0,
                    matchedByIsbn: 9), to: run + "/merge-report.json")
            let result = try renderer.refresh(runDirectory: run, now: at(0))
            #expect(result.emitted == [.start, .end])
            #expect(result.contentState.currentStep == "Import complete")
        }
        let history = try renderer.store.history(ImportActivityRenderer.Snapshot.self)
        #expect(history.map(\.event) == [.start, .end, .start, .end])
        #expect(Set(history.map(\.attributes.sessionId)).count == 2)
    }

    /// A lookup report that does not decode names the file (exit 65) and leaves the snapshot as it was.
    @Test(.bug(id: 6)) func corruptReportIsAnErrorNamingTheFile() throws {
        let temp = TemporaryDirectory("render-corrupt")
        let workspace = Workspace(root: temp.file("ws"))
        let run = temp.file("run")
        try Workspace.makeDirectory(run)
        temp.write("run/parse-report.json", #"{"rowsRead": "#)
        let renderer = ImportActivityRenderer(workspace: workspace, files: .pipelineDefaults)
        let error = #expect(throws: FileError.self) { try renderer.refresh(runDirectory: run, now: at(0)) }
        #expect(error.map { "\($0)" }?.contains("parse-report.json") == true)
        #expect(error.map { ExitStatus(for: $0) } == .dataError)
        #expect(!FileManager.default.fileExists(atPath: renderer.store.snapshotPath))
    }

    /// Long titles (and a huge file name) never push the body past 4096 bytes.
    @Test(.bug(id: 6)) func importBodyStaysWithinLimitForHugeText() throws {
        let temp = TemporaryDirectory("render-huge")
        let workspace = Workspace(root: temp.file("ws"))
        let run = temp.file("run")
        try Workspace.makeDirectory(run)
        let longName = String(repeating: "🍺\u{05E9}\u{05DC}\u{05D5}\u{05DD} \"quoted\" ", count: 500)
        try Fixtures.write(
            Fixtures.parseReport(rowsRead: 5, rejected: 0, input: longName + ".csv"), to: run + "/parse-report.json")
        temp.write("run/dedupe-report.json", "{}")
        try Fixtures.write(
            StageProgress(
                stage: "lookup", processed: 1, total: 5, currentTitle: longName, currentAuthor: longName,
                startedAt: 0, updatedAt: 1), to: run + "/lookup-progress.json")
        let renderer = ImportActivityRenderer(workspace: workspace, files: .pipelineDefaults)
        try renderer.refresh(runDirectory: run, now: at(0))
        let snapshot = try #require(try renderer.store.latest(ImportActivityRenderer.Snapshot.self))
        #expect(try snapshot.pushBodySize() <= 4096)
        try SnapshotContract.checkImport(Data(contentsOf: URL(fileURLWithPath: renderer.store.snapshotPath)))
        #expect(snapshot.contentState.currentBookTitle?.hasPrefix("🍺") == true)
    }

    @Test(.bug(id: 6)) func historyKeepsTheNewestLinesUpToItsLimit() throws {
        let temp = TemporaryDirectory("render-history")
        var parameters = RenderParameters()
        parameters.historyLimit = 3
        parameters.minimumUpdateIntervalSeconds = 0
        let renderer = ImportActivityRenderer(
            workspace: Workspace(root: temp.file("ws")), parameters: parameters, files: .pipelineDefaults)
        let run = temp.file("run")
        try Workspace.makeDirectory(run)
        try renderer.refresh(runDirectory: run, now: at(0))
        for step in 1...5 {
            try Fixtures.write(Fixtures.parseReport(rowsRead: 10 * step, rejected: 0), to: run + "/parse-report.json")
            #expect(try renderer.refresh(runDirectory: run, now: at(Double(step))).emitted == [.update])
        }
        let history = try renderer.store.history(ImportActivityRenderer.Snapshot.self)
        #expect(history.map(\.contentState.totalBooks) == [30, 40, 50])
    }
}
