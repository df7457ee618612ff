import Foundation
import TestSupport
import TestTraits
import Testing

/// The import's report page (`runs/<id>/report.html`) through `shelfline run`.
@Suite(.offCooperativePool) struct ImportReportEndToEndTests {
    /// The run reads a copy of the file (`input.csv`); the page names the user's file.
    @Test(.bug(id: 38)) func reportIsTitledWithTheUsersFileName() throws {
        let temp = TemporaryDirectory("import-report")
        let csv = temp.file("my library & more (2024).csv")
        try FileManager.default.copyItem(
            atPath: ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv", toPath: csv)
        let config = try ConfigFile.shippedExample().write(to: temp.file("pipeline.json"))
        let workspace = temp.file("ws")
        let result = try ExecutableRunner.run(
            "shelfline", ["run", "--csv", csv, "--workspace", workspace, "--config", config, "--quiet"])
        try #require(result.status == 0, "\(result)")
        let page = try String(contentsOfFile: workspace + "/runs/latest/report.html", encoding: .utf8)
        #expect(page.contains("<title>Import report: my library &amp; more (2024).csv</title>"), "\(page.prefix(400))")
        #expect(page.contains("<h1>Import report: my library &amp; more (2024).csv</h1>"))
        #expect(!page.contains("input.csv"))
    }
}
