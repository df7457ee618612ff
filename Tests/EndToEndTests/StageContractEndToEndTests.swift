import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import TestTraits
import Testing

/// The stage contract through the built executables (issue 9): outputs renamed in pipeline.json
/// are what every stage, render, the summary and `review` use.
@Suite(.offCooperativePool) struct StageContractEndToEndTests {
    static let example = ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv"

    @Test(.bug(id: 9)) func renamedOutputsWorkEndToEnd() throws {
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
        let arguments = [
            "run", "--csv", Self.example, "--config", configPath, "--workspace", workspace, "--log-format", "logfmt",
        ]

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
        // The page names the user's file (issue 38), not the run's copy nor the fallback "import".
        let page = try String(contentsOfFile: run + "/import.html", encoding: .utf8)
        #expect(page.contains("<title>Import report: goodreads_library_export.csv</title>"), "\(page.prefix(300))")
        let report = try readJSONFile(MergeReport.self, from: run + "/import-summary.json")
        #expect(report.rowsRead == 15 && report.outcomes.total == 15)
        #expect(report.review == "to-review.json" && report.failedRows == "rejected.csv")
        // The activity ended from the renamed merge report.
        let activity = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: workspace + "/activity/import.json")))
        #expect((activity as? [String: Any])?["event"] as? String == "end", "\(activity)")
        // `review` finds the renamed review list through the renamed merge report.
        let review = try ExecutableRunner.run(
            "shelfline", ["review", "list", "--config", configPath, "--workspace", workspace],
            in: dir.path)
        #expect(review.status == 0, "\(review)")

        let second = try ExecutableRunner.run("shelfline", arguments, in: dir.path)
        #expect(second.status == 0, "\(second)")
        #expect(second.stdout.contains("already imported"), "\(second)")
    }

    /// One workspace resolver (issue 9): `~` and relative paths mean the same absolute directory
    /// to the orchestrator, every stage it starts, a stage run by hand and `review`.
    @Test(.bug(id: 9)) func tildeWorkspaceIsOneAbsolutePathForEveryCommand() throws {
        let dir = TemporaryDirectory("tilde-workspace")
        let home = dir.file("home")
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        let config = try ConfigFile.shippedExample().write(to: dir.file("pipeline.json"))
        let environment = ["HOME": home]

        let run = try ExecutableRunner.run(
            "shelfline", ["run", "--csv", Self.example, "--config", config, "--workspace", "~/shelf"],
            in: dir.path, environment: environment)
        #expect(run.status == 0, "\(run)")
        #expect(FileManager.default.fileExists(atPath: home + "/shelf/library/library.ndjson.gz"))
        #expect(!FileManager.default.fileExists(atPath: dir.file("~")), "a literal ~ directory was created")
        #expect(run.stdout.contains("report: \(home)/shelf/runs/"), "\(run)")

        // A stage by hand, its workspace from the environment as `~/…`: it reads that library.
        let parsed = home + "/shelf/runs/latest/parsed.ndjson.gz"
        let dedupe = try ExecutableRunner.run(
            "shelfline-dedupe", [parsed, "-o", "again.ndjson.gz", "--report", "again.json", "--config", config, "--quiet"],
            in: dir.path, environment: environment.merging(["SHELFLINE_WORKSPACE": "~/shelf"]) { $1 })
        #expect(dedupe.status == 0, "\(dedupe)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("again.json"))))
        #expect((report as? [String: Any])?["libraryBooks"] as? Int == 14, "\(report)")

        // `review` and a relative `--workspace` (against the current directory) find the same run.
        let relative = try ExecutableRunner.run(
            "shelfline", ["review", "list", "--config", config, "--workspace", "home/shelf"],
            in: dir.path, environment: environment)
        #expect(relative.status == 0, "\(relative)")
        #expect(relative.stdout.contains("No rows need review") || relative.stdout.contains("need review"), "\(relative)")
    }
}
