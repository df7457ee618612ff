import ArgumentParser
import ShelflineCore
import ShelflineStageCLI

/// `shelfline`: the orchestrator's root command.
public struct ShelflineCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "shelfline",
        abstract: "Import reading-library exports into a local library, stage by stage, resumably.",
        discussion: helpDiscussion(
            """
            Stages (each its own executable): \(Stage.pipeline.map(\.executable).joined(separator: ", ")). \
            Configured by pipeline.json (--config). Workspace: --workspace, $SHELFLINE_WORKSPACE, or ./var.
            """),
        version: shelflineVersion,
        subcommands: [
            RunCommand.self, PlanCommand.self, StatusCommand.self, CleanCommand.self, ReviewCommand.self,
            RebuildCommand.self, ExportCommand.self, LibraryCommand.self,
        ])

    public init() {}

    /// Without a subcommand: what to run first (the README's two commands), not a wall of help.
    public func run() async throws {
        print(Self.firstSteps)
    }

    public static let firstSteps = """
        shelfline: import reading-library exports into a local library.

        To start, from the repository:
          make import CSV=examples/goodreads_library_export.csv   # build, then import the example offline
          make test                                               # run every test

        Then import your own export:
          shelfline run --csv FILE [--workspace DIR]

        Commands: run, plan, status, clean, review, rebuild, export, library. See `shelfline --help` and `shelfline help run`.
        """
}

/// A `shelfline` subcommand that runs as a stage command: without a pipeline.json, it knows every
/// stage with its defaults.
protocol OrchestratorCommand: StageCommand {}

extension OrchestratorCommand {
    static var knownStages: [Stage] { Stage.pipeline }
}
