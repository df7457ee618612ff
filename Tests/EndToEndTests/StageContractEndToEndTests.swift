import Foundation
import ShelflineCore
import Testing
import TestSupport

/// The stage contract through the built executables (issue 9): outputs renamed in pipeline.json
/// are what every stage, render, the summary and `review` use.
@Suite struct StageContractEndToEndTests {
    static let example = ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv"

    @Test func issue9_renamedOutputsWorkEndToEnd() throws {
        let dir = TemporaryDirectory("renamed-outputs")
        let renamed = [
            "parse-report.json": "parsed-summary.json", "dedupe-report.json": "dedupe-summary.json",
            "lookup-report.json": "lookup-summary.json", "merge-report.json": "import-summary.json",
            "review.json": "to-review.json", "failed-rows.csv": "rejected.csv", "report.html": "import.html",
        ]
        var config = try ConfigFile.shippedExample()
        for (old, new) in renamed { config.rename(old, to: new) }
        let configPath = try config.write(to: dir.file("pipeline.json"))
        let workspace = dir.file("ws")
        let arguments = ["run", "--csv", Self.example, "--config", configPath, "--workspace", workspace, "--log-format", "logfmt"]

        let first = try ExecutableRunner.run("shelfline", arguments, in: dir.path)
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout.contains("15 rows read: 14 added"), "\(first)")
        #expect(first.stdout.contains("report: \(workspace)/runs/"), "\(first)")
        #expect(first.stdout.contains("/import.html"), "\(first)")
        // Each report declares its own row count, whatever its file is called.
        for stage in ["parse", "dedupe", "lookup", "merge"] {
            #expect(first.stderr.contains("stage=\(stage) event=done rows=15 "), "\(stage): \(first)")
        }
        let run = workspace + "/runs/latest"
        for (old, new) in renamed {
            #expect(FileManager.default.fileExists(atPath: run + "/" + new), "\(new)")
            #expect(!FileManager.default.fileExists(atPath: run + "/" + old), "\(old)")
        }
        let report = try readJSONFile(MergeReport.self, from: run + "/import-summary.json")
        #expect(report.rowsRead == 15 && report.outcomes.total == 15)
        #expect(report.review == "to-review.json" && report.failedRows == "rejected.csv")
        // The activity ended from the renamed merge report.
        let activity = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: workspace + "/activity/import.json")))
        #expect((activity as? [String: Any])?["event"] as? String == "end", "\(activity)")
        // `review` finds the renamed review list through the renamed merge report.
        let review = try ExecutableRunner.run("shelfline", ["review", "list", "--config", configPath, "--workspace", workspace],
                                              in: dir.path)
        #expect(review.status == 0, "\(review)")

        let second = try ExecutableRunner.run("shelfline", arguments, in: dir.path)
        #expect(second.status == 0, "\(second)")
        #expect(second.stdout.contains("already imported"), "\(second)")
    }
}
