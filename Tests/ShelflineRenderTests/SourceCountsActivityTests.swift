import ActivityTestSupport
import Foundation
import ShelflineCore
import ShelflineRender
import TestSupport
import Testing

/// Issue 39: the import Live Activity's end says how many books each metadata source matched.
extension ImportActivityTests {
    @Test(.bug(id: 39)) func activityEndCarriesMatchesPerSourceWhenSeveralMatched() throws {
        let temp = TemporaryDirectory("render-sources")
        let renderer = ImportActivityRenderer(workspace: Workspace(root: temp.file("ws")), files: .pipelineDefaults)
        /// The end snapshot of a finished run whose matches came from `isbn` and `search` by source.
        func end(_ name: String, isbn: [String: Int], search: [String: Int]?) throws -> Data {
            let run = temp.file("ws/runs/\(name)")
            try Workspace.makeDirectory(run)
            try Fixtures.write(Fixtures.parseReport(rowsRead: 20, rejected: 0), to: run + "/parse-report.json")
            var merge = Fixtures.mergeReport(
                added: 20, updated: 0, duplicates: 0, rejected: 0, needsReview: 0, notEnriched: 0, matchedByIsbn: 18)
            merge.enrichment.matchedBySearch = 2
            merge.enrichment.isbnBySource = isbn
            merge.enrichment.searchBySource = search
            try Fixtures.write(merge, to: run + "/merge-report.json")
            #expect(try renderer.refresh(runDirectory: run, now: at(0)).emitted == [.start, .end])
            return try Data(contentsOf: URL(fileURLWithPath: renderer.store.snapshotPath))
        }

        let several = try end("several", isbn: ["openlibrary": 15, "googlebooks": 3], search: ["openlibrary": 2])
        let (_, state, _) = try SnapshotContract.checkImport(several)
        #expect(state.matchesBySource == ["openlibrary": 17, "googlebooks": 3])
        let push = try #require(try SnapshotContract.member(several, ["apns", "aps", "content-state"]))
        #expect(String(decoding: push, as: UTF8.self).contains(#""matchesBySource":{"#))

        // One source: nothing to tell apart, and the key is omitted (never null).
        let one = try end("one", isbn: ["openlibrary": 18], search: ["openlibrary": 2])
        let (_, single, _) = try SnapshotContract.checkImport(one)
        #expect(single.matchesBySource == nil)
        #expect(!String(decoding: one, as: UTF8.self).contains("matchesBySource"))
    }
}
