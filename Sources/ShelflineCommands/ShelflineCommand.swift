import ArgumentParser
import ShelflineCore
import ShelflineStageCLI

/// `shelfline`: the orchestrator's root command.
public struct ShelflineCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "shelfline",
        abstract: "Import reading-library exports into a local library, stage by stage, resumably.",
        discussion: helpDiscussion("""
            Stages (each its own executable): \(StageName.allCases.map(\.executable).joined(separator: ", ")). \
            Configured by pipeline.json (--config). Workspace: --workspace, $SHELFLINE_WORKSPACE, or ./var.
            """),
        version: shelflineVersion,
        subcommands: [RunCommand.self, PlanCommand.self, StatusCommand.self, CleanCommand.self, ReviewCommand.self])

    public init() {}
}
