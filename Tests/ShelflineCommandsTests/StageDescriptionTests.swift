import Foundation
import Testing

@testable import ShelflineCommands
@testable import ShelflineCore

/// The stage descriptions each stage type declares, as the commands layer lists them (issue 9,
/// issue 24): the shipped configs, the file names found by role, and what each stage's
/// fingerprint covers.
@Suite struct StageDescriptionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let stages = Stage.pipeline

    @Test(.bug(id: 24)) func theListHasEveryStageOnceInOrderEachDeclaredByItsType() {
        #expect(Self.stages.map(\.name) == StageName.allCases)
        #expect(StageName.allCases.map { PipelineStages.named($0).name } == StageName.allCases)
    }

    @Test(.bug(id: 9), arguments: ["pipeline.json", "examples/pipeline.json"])
    func shippedConfigsDeclareWhatTheDescriptionsSay(_ name: String) throws {
        let config = try PipelineConfig.load(path: Self.root + "/" + name)
        #expect(config.stages.map(\.name) == Self.stages.map(\.name))
        for declaration in config.stages {
            let stage = try #require(Self.stages.named(declaration.name))
            #expect(declaration.inputs == stage.inputs.map(\.defaultName), "\(declaration.name)")
            #expect(declaration.outputs == stage.outputs.map(\.defaultName), "\(declaration.name)")
            #expect(stage.parameterStages.contains(declaration.name))
            #expect(
                stage.parameterStages.allSatisfy { $0 <= declaration.name }, "a stage decodes only its own or earlier parameters")
        }
    }

    @Test(.bug(id: 9)) func everyStageHasOneReportAndDistinctDefaultNames() {
        var names: Set<String> = []
        for stage in Self.stages {
            #expect(stage.executable == "shelfline-\(stage.name.rawValue)")
            #expect(stage.outputs.filter { $0.role == .report }.count <= 1, "\(stage.name)")
            for output in stage.outputs + (stage.progress.map { [$0] } ?? []) {
                #expect(names.insert(output.defaultName).inserted, "\(output.defaultName) is produced twice")
            }
        }
    }

    @Test(.bug(id: 9)) func filesAreFoundByRoleUnderTheirDeclaredNames() {
        let config = PipelineConfig(stages: [
            StageDeclaration(name: .dedupe, inputs: ["p.gz"], outputs: ["d.gz", "dedupe-summary.json"]),
            StageDeclaration(name: .merge, inputs: ["d.gz", "ps.json", "r.gz"], outputs: ["import.json", "l.gz"]),
        ])
        let files = RunFiles(config: config, stages: Self.stages)
        #expect(files.output(.dedupe, .report) == "dedupe-summary.json")
        #expect(files.output(.merge, .report) == "import.json")
        #expect(files.input(.merge, .parseReport) == "ps.json")
        // Declared too short: there is no such file, rather than a guess.
        #expect(files.output(.merge, .review) == nil)
        // A stage the config leaves out has its description's names.
        #expect(files.output(.parse, .report) == "parse-report.json")
        #expect(files.output(.render, .page) == "report.html")
        #expect(files.output(.dedupe, .ledger) == nil)
        #expect(files.progress(.lookup) == "lookup-progress.json")
        #expect(files.progress(.parse) == nil)
        #expect(RunFiles(config: nil, stages: Self.stages).output(.merge, .report) == "merge-report.json")
    }

    @Test(.bug(id: 9)) func fingerprintCoversEveryParameterObjectAStageDecodes() throws {
        let dedupe = try #require(Self.stages.named(.dedupe)), merge = try #require(Self.stages.named(.merge))
        func config(dedupe: JSONValue, merge: JSONValue) -> PipelineConfig {
            PipelineConfig(stages: [
                StageDeclaration(name: .dedupe, inputs: [], outputs: [], parameters: dedupe),
                StageDeclaration(name: .merge, inputs: [], outputs: [], parameters: merge),
            ])
        }
        let base = config(dedupe: .object(["stripSubtitle": .bool(true)]), merge: .object(["buckets": .number(256)]))
        let dedupeChanged = config(dedupe: .object(["stripSubtitle": .bool(false)]), merge: .object(["buckets": .number(256)]))
        let mergeChanged = config(dedupe: .object(["stripSubtitle": .bool(true)]), merge: .object(["buckets": .number(16)]))
        // Merge decodes dedupe's parameters too: a change to either changes its fingerprint.
        #expect(base.fingerprintedParameters(merge) != dedupeChanged.fingerprintedParameters(merge))
        #expect(base.fingerprintedParameters(merge) != mergeChanged.fingerprintedParameters(merge))
        // Dedupe's does not move when only merge's change.
        #expect(base.fingerprintedParameters(dedupe) == mergeChanged.fingerprintedParameters(dedupe))
        // A stage that decodes only its own parameters is fingerprinted on them as they stand, so
        // the manifests of runs made before keep matching.
        #expect(base.fingerprintedParameters(dedupe) == JSONValue.object(["stripSubtitle": .bool(true)]).canonicalJSON)
        // A stage left out is fingerprinted as `{}`, what its stage decodes then.
        #expect(PipelineConfig(stages: []).fingerprintedParameters(Self.stages[0]) == JSONValue.object([:]).canonicalJSON)
    }
}
