import Foundation
import ShelflineCommands
import TestSupport
import Testing

@testable import ShelflineCore
@testable import ShelflineOrchestrator

/// The orchestrator's side of the stage contract (issue 9): each child's arguments and row
/// count come from the stage description and the declared names, never from guesses.
@Suite struct StageContractTests {
    final class Fixture {
        let dir = TemporaryDirectory("contract")
        let workspace: Workspace
        let run: RunDirectory

        init() throws {
            workspace = Workspace(root: dir.file("ws"))
            run = RunDirectory(id: "0123456789abcdef", workspace: workspace)
            try Workspace.makeDirectory(run.manifestsDirectory)
            dir.write("ws/runs/0123456789abcdef/input.csv", "Book Id,Title\n1,Dune\n")
        }

        func runner(_ config: PipelineConfig, reportType: @escaping (StageName) -> (any FileStageReport.Type)? = { _ in nil })
            -> PipelineRunner
        {
            PipelineRunner(
                config: config, stages: Stage.pipeline, configPath: dir.file("absent.json"), workspace: workspace,
                binDirectory: dir.path,
                log: Logfmt(quiet: true), quiet: false, now: { Date(timeIntervalSince1970: 0) },
                cancellation: CancellationFlag(), reportType: reportType)
        }
    }

    /// Every stage declared with its description's default names, except the ones renamed.
    static func config(renaming renamed: [String: String] = [:]) -> PipelineConfig {
        PipelineConfig(
            stages: Stage.pipeline.map { stage in
                StageDeclaration(
                    name: stage.name, inputs: stage.inputs.map { renamed[$0.defaultName] ?? $0.defaultName },
                    outputs: stage.outputs.map { renamed[$0.defaultName] ?? $0.defaultName })
            })
    }

    /// `option value` pairs of an argument list.
    static func value(of option: String, in arguments: [String]) -> String? {
        arguments.firstIndex(of: option).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    }

    @Test(.bug(id: 9)) func argumentsComeFromTheDescriptionAndTheDeclaredNames() throws {
        let fixture = try Fixture()
        let renamed = [
            "merge-report.json": "import.json", "review.json": "to-review.json", "parse-report.json": "parsed.json",
            "deduped.ndjson.gz": "marked.ndjson.gz",
        ]
        let runner = fixture.runner(Self.config(renaming: renamed))
        let run = fixture.run

        let parse = try runner.arguments(for: .parse, run: run)
        #expect(
            Array(parse.prefix(7)) == [
                run.file("input.csv"), "-o", "parsed.ndjson.gz", "--rejects", "rejects.ndjson.gz",
                "--report", "parsed.json",
            ])
        let dedupe = try runner.arguments(for: .dedupe, run: run)
        #expect(dedupe.first == run.file("parsed.ndjson.gz") && Self.value(of: "-o", in: dedupe) == "marked.ndjson.gz")
        let lookup = try runner.arguments(for: .lookup, run: run)
        #expect(lookup.first == run.file("marked.ndjson.gz"))
        #expect(Self.value(of: "--progress", in: lookup) == "lookup-progress.json")
        let merge = try runner.arguments(for: .merge, run: run)
        #expect(merge.first == run.file("enriched.ndjson.gz"))
        #expect(Self.value(of: "--parse-report", in: merge) == run.file("parsed.json"))
        #expect(Self.value(of: "--report", in: merge) == "import.json")
        #expect(Self.value(of: "--review", in: merge) == "to-review.json")
        #expect(Self.value(of: "--progress", in: merge) == "merge-progress.json")
        #expect(Self.value(of: "--import-id", in: merge) == run.id)
        #expect(!merge.contains { $0.contains("{decisions}") }, "merge finds the decisions itself")
        let render = try runner.arguments(for: .render, run: run)
        #expect(Array(render.prefix(3)) == ["import", "--run", run.path])
        for arguments in [parse, dedupe, lookup, merge, render] {
            #expect(Self.value(of: "--workspace", in: arguments) == fixture.workspace.root)
            #expect(!arguments.contains("--config"), "no config file to pass")
        }
    }

    @Test(.bug(id: 9)) func aDeclarationTooShortIsAConfigErrorNamingTheKey() throws {
        let fixture = try Fixture()
        var config = Self.config()
        config.stages[3].outputs.removeLast()
        let error = try #require(throws: ConfigError.self) { try fixture.runner(config).arguments(for: .merge, run: fixture.run) }
        #expect("\(error)".contains("stages[merge].outputs"), "\(error)")
        #expect("\(error)".contains("at least 4 entries"), "\(error)")
    }

    /// A report whose row count sits under a key no guess would try.
    struct CountedReport: FileStageReport {
        var handled: Int
        var rowCount: Int { handled }
    }

    @Test(.bug(id: 9)) func rowCountIsWhatTheStagesReportDeclares() throws {
        let fixture = try Fixture()
        let config = Self.config(renaming: ["dedupe-report.json": "marks.json"])
        fixture.dir.write("ws/runs/0123456789abcdef/marks.json", #"{"rowsRead": 1, "records": 2, "handled": 42}"#)
        fixture.dir.write("ws/runs/0123456789abcdef/parse-report.json", #"{"rowsRead": 7}"#)
        let runner = fixture.runner(config) { $0 == .dedupe ? CountedReport.self : nil }
        #expect(runner.rowCount(.dedupe, run: fixture.run) == 42)
        // No report type bound: no count, whatever keys the file holds.
        #expect(runner.rowCount(.parse, run: fixture.run) == nil)
        // A report that does not decode gives no count rather than a wrong one.
        fixture.dir.write("ws/runs/0123456789abcdef/marks.json", #"{"rowsRead": 1}"#)
        #expect(runner.rowCount(.dedupe, run: fixture.run) == nil)
    }

    @Test(.bug(id: 9)) func mergeRerunsWhenDedupesParametersChange() throws {
        let fixture = try Fixture()
        var config = Self.config()
        let before = StagePlanner(config: config, stages: Stage.pipeline, workspace: fixture.workspace)
        config.stages[1].parameters = .object(["stripSubtitle": .bool(false)])
        let after = StagePlanner(config: config, stages: Stage.pipeline, workspace: fixture.workspace)
        #expect(before.parametersHash(.merge) != after.parametersHash(.merge))
        #expect(before.parametersHash(.lookup) == after.parametersHash(.lookup))
    }
}
