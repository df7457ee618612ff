import ShelflineCommands
import ShelflineCore
import ShelflineLibrary
import ShelflineParse
import Testing

/// Files a stage reads or writes that `pipeline.json` does not list are declared in its
/// description all the same (`Stage.unlistedInputs`/`unlistedOutputs`), and found by role.
@Suite struct UnlistedStageFilesTests {
    @Test(.bug(id: 24))
    func theLibraryAndNotEnrichedRowsAreDeclaredByTheStagesThatUseThem() {
        #expect(DedupeStage.description.unlistedInputs.map(\.role) == [.library])
        #expect(MergeStage.description.unlistedInputs.map(\.role) == [.library])
        #expect(Set(MergeStage.description.unlistedOutputs.map(\.role)) == [.notEnrichedRows, .library])
        #expect(
            ParseStage.description.unlistedOutputs == [
                StageFile(.texts, .foundByRole, defaultName: "texts.ndjson.gz", besides: .records)
            ])
        #expect(ParseStage.description.unlistedInputs.isEmpty)
        for stage in Stage.pipeline where stage.name != .dedupe && stage.name != .merge && stage.name != .parse {
            #expect(stage.unlistedInputs.isEmpty && stage.unlistedOutputs.isEmpty, "\(stage.name)")
        }
    }

    @Test func unlistedFilesAreFoundByRoleUnderTheDescriptionsNames() {
        let stages = Stage.pipeline
        let files = RunFiles(config: PipelineConfig.builtInDefault(stages: stages, environment: [:]), stages: stages)
        #expect(files.output(.merge, .notEnrichedRows) == "not-enriched.csv")
        #expect(files.output(.merge, .failedRows) == "failed-rows.csv")
        #expect(MergeStage.description.defaultOutput(.notEnrichedRows) == "not-enriched.csv")
        let workspace = Workspace(root: "/ws")
        #expect(workspace.file(named: "{library}") == workspace.libraryFile)
        #expect(workspace.file(named: "{decisions}") == workspace.decisionsFile)
        #expect(workspace.file(named: "review.json") == nil)
    }
}
