import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import Testing

@testable import ShelflineLibrary

/// Issue 13.5: merge keeps a progress JSON current the way lookup does.
@Suite struct MergeProgressTests {
    let temp = TemporaryDirectory("library-progress-tests")
    var workspace: Workspace { Workspace(root: temp.file("ws")) }

    /// A clock that moves one second per reading and, at each reading, notes what the progress file says.
    final class SteppingClock: @unchecked Sendable {
        private let lock = NSLock()
        private var seconds = 1_760_000_000.0
        private(set) var seen: [StageProgress] = []
        let path: String

        init(path: String) { self.path = path }

        func now() -> Date {
            lock.withLock {
                if let progress = try? readJSONFile(StageProgress.self, from: path) { seen.append(progress) }
                seconds += 1
                return Date(timeIntervalSince1970: seconds)
            }
        }
    }

    @Test(.bug(id: 13)) func mergeWritesProgressThroughBothPasses() throws {
        let rows =
            (0..<2000).map { row(rec("Book \($0)", by: "Author \($0 % 37)", shelf: "read"), id: $0 + 1) }
            + [row(rec("Book 5", by: "Author 5"), id: 9999)]
        let fixture = try ImportFixture(directory: temp.file("run"), rows: rows)
        var request = fixture.request(importId: "run-1")
        request.progress = fixture.directory + "/merge-progress.json"
        let clock = SteppingClock(path: request.progress!)
        let report = try MergeStage.run(request, workspace: workspace, now: { clock.now() })

        let final = try readJSONFile(StageProgress.self, from: request.progress!)
        #expect(final.stage == "merge")
        #expect(final.finished)
        #expect(final.total == 2 * rows.count)
        #expect(final.processed == final.total)
        #expect(final.counts["added"] == report.outcomes.added)
        #expect(final.counts["duplicateInFile"] == 1)
        // While it ran, the file moved on: in pass 1 and in pass 2, never backwards.
        let processed = clock.seen.map(\.processed)
        #expect(processed == processed.sorted())
        #expect(processed.contains { $0 > 0 && $0 < rows.count })
        #expect(processed.contains { $0 > rows.count && $0 < 2 * rows.count })
        #expect(clock.seen.dropLast().allSatisfy { !$0.finished })
    }

    @Test(.bug(id: 13)) func failedMergeLeavesUnfinishedProgress() throws {
        let fixture = try ImportFixture(directory: temp.file("bad"), rows: [row(rec("Dune", by: "Frank Herbert"), id: 1)])
        // The parse report promises a row the records do not hold: merge stops with a count mismatch.
        var parse = try readJSONFile(ParseReport.self, from: fixture.parseReport)
        parse.rowsRead += 1
        try writeJSONFile(parse, to: fixture.parseReport)
        var request = fixture.request()
        request.progress = fixture.directory + "/merge-progress.json"
        #expect(throws: LibraryError.self) {
            try MergeStage.run(request, workspace: workspace, now: { Date(timeIntervalSince1970: 0) })
        }
        let progress = try readJSONFile(StageProgress.self, from: request.progress!)
        #expect(!progress.finished)
        #expect(progress.processed < progress.total)
    }
}
