import Foundation
import ShelflineCommands
import ShelflineCore
import ShelflineReports
import TestSupport
import TestTraits
import Testing

/// `shelfline run --csv FILE` with no `pipeline.json` anywhere: the built-in default configuration
/// (every stage, its default files and parameters; lookup asks the Open Library API alone).
@Suite(.offCooperativePool) struct DefaultConfigEndToEndTests {
    @Test(.bug(id: 24))
    func importRunsWithoutAnyPipelineJSONAskingOpenLibraryAlone() async throws {
        let server = try await PipelineEndToEndTests.openLibrary()
        server.latency = nil
        let exports = TemporaryDirectory("default-config-csv")
        let csv = exports.write("export.csv", PipelineEndToEndTests.syntheticExport(count: 6))
        let dir = TemporaryDirectory("default-config")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)

        let result = try ExecutableRunner.run(
            "shelfline", ["run", "--csv", csv], in: dir.path,
            environment: ["SHELFLINE_OPENLIBRARY_URL": server.baseURL])
        try await server.shutdown()

        #expect(result.status == 0, "\(result)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("pipeline.json")))
        // The workspace defaults to ./var, the run's files to the descriptions' names.
        let report = try readJSONFile(MergeReport.self, from: dir.file("var/runs/latest/merge-report.json"))
        #expect(report.rowsRead == 6)
        #expect(report.outcomes.added == 6)
        #expect(report.enrichment.matchedByIsbn == 6, "every row answered by the loopback Open Library")
        #expect(!server.requests.isEmpty)
        #expect(
            server.requests.allSatisfy { $0.path.hasPrefix("/api/books") || $0.path.hasPrefix("/search") },
            "\(server.requests.map(\.path))")
        #expect(FileManager.default.fileExists(atPath: dir.file("var/library/library.ndjson.gz")))
        let page = try ImportReportPageReading(path: dir.file("var/runs/latest/report.html"))
        #expect(page.title == "export.csv")
        #expect(page.rowsRead == 6, "\(page)")
        #expect(page.outcomes == ["added": 6, "updated": 0, "duplicateInFile": 0, "rejected": 0], "\(page)")
        #expect(page.charts["enrichment"]?["Matched by ISBN"] == 6, "\(page)")
    }

    @Test func builtInDefaultDeclaresEveryStageWithItsDefaultFiles() throws {
        let stages = Stage.pipeline
        let config = PipelineConfig.builtInDefault(stages: stages, environment: [:])
        try config.validateWiring(path: "(built-in defaults)")
        #expect(config.stages.map(\.name) == StageName.allCases)
        for declaration in config.stages {
            let description = try #require(stages.named(declaration.name))
            #expect(declaration.inputs == description.inputs.map(\.defaultName))
            #expect(declaration.outputs == description.outputs.map(\.defaultName))
            #expect(declaration.parameters == .object([:]), "\(declaration.name): every parameter at its default")
        }
        let mirrored = PipelineConfig.builtInDefault(
            stages: stages, environment: ["SHELFLINE_OPENLIBRARY_URL": "http://127.0.0.1:9"])
        #expect(
            mirrored.stages.first { $0.name == .lookup }?.parameters
                == .object(["openLibrary": .object(["baseURL": .string("http://127.0.0.1:9")])]))
    }
}
