import Foundation
import ShelflineCommands
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineOrchestrator

/// Which stored runs a rerun asks again: lookup's report counts rows no source could answer, and
/// the last attempt must be old enough (the minimum interval, on the clock given as `now`).
@Suite struct AskAgainTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        /// `lookup-report.json`, nil: none written.
        var report: String?
        /// Seconds between the lookup's end and now.
        var age: Double
        var afterSeconds: Double
        var rows: Int
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "rows to ask, interval 0", report: #"{"rowsToAskAgain": 3}"#, age: 0, afterSeconds: 0, rows: 3),
        Case(
            name: "rows to ask, last attempt too recent", report: #"{"rowsToAskAgain": 3}"#, age: 3599, afterSeconds: 3600,
            rows: 0),
        Case(
            name: "rows to ask, last attempt old enough", report: #"{"rowsToAskAgain": 3}"#, age: 3600, afterSeconds: 3600,
            rows: 3),
        Case(name: "every row answered (no count)", report: #"{"recordsRead": 2}"#, age: 7200, afterSeconds: 0, rows: 0),
        Case(name: "no report", report: nil, age: 7200, afterSeconds: 0, rows: 0),
    ]

    @Test(.bug(id: 40), arguments: cases) func rowsToAskAgain(_ check: Case) throws {
        let dir = TemporaryDirectory("ask-again")
        let workspace = Workspace(root: dir.file("ws"))
        let run = RunDirectory(id: "0123456789abcdef", workspace: workspace)
        try Workspace.makeDirectory(run.manifestsDirectory)
        let finished = 1_800_000_000.0
        let manifest = StageManifest(
            stage: .lookup, fingerprint: "f", algorithmVersion: 1, parametersHash: "p", inputs: [], outputs: [],
            durationMs: 1, finishedAt: finished)
        try writeJSONFile(manifest, to: run.manifestPath(.lookup))
        let files = RunFiles(config: nil, stages: Stage.pipeline)
        if let report = check.report { dir.write("ws/runs/\(run.id)/\(try #require(files.output(.lookup, .report)))", report) }
        let askAgain = AskAgain(files: files, afterSeconds: check.afterSeconds)
        let now = Date(timeIntervalSince1970: finished + check.age)
        #expect(askAgain.rows(.lookup, in: run, now: now) == check.rows)
        #expect(askAgain.rows(in: run, now: now) == check.rows)
    }
}
