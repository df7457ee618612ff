import ArgumentParser
import Foundation
import ShelflineCore
import ShelflineRender
import ShelflineReports
import ShelflineStageCLI

/// `shelfline-render`: Live Activity snapshots for the import and the beer queue.
@main
public struct RenderCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "shelfline-render",
        abstract: "Write Live Activity snapshots and APNs push bodies (import, beer queue) and the import report page.",
        discussion: helpDiscussion(
            """
            Subcommands:
              import      the import activity from a run directory, and <run dir>/report.html
              beer-queue  the beer-queue activity from a saved page, a JSON file or a live poll
            Snapshots go to <workspace>/activity/<name>.json with their history in <name>.history.ndjson.
            See docs/render.md.
            """),
        version: shelflineVersion,
        subcommands: [ImportActivityCommand.self, BeerQueueCommand.self])

    public init() {}
}

/// Subcommands report errors under the executable's name, as every stage does.
protocol RenderSubcommand: StageCommand {}

extension RenderSubcommand {
    public static var reportedName: String { "shelfline-render" }
}

/// `shelfline-render import --run RUN_DIR`: one refresh of the import activity.
public struct ImportActivityCommand: RenderSubcommand, PipelineStageCommand {
    public typealias Runs = RenderStage

    /// Render reads every stage's files by role, so it knows every stage's description.
    public static var knownStages: [Stage] { Stage.pipeline }

    public static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Emit the import Live Activity snapshot that is due for a run directory.",
        discussion: helpDiscussion(
            """
            Reads (whichever exist) RUN_DIR/parse-report.json, dedupe-report.json, lookup-progress.json,
            lookup-report.json, merge-report.json, and for the report page review.json and failed-rows.csv.
            Writes <workspace>/activity/import.json and import.history.ndjson: `start` on the first call for a
            run, an `update` when the counts changed (at most one per 2 s unless --force), and `end` once
            merge-report.json exists, when it also writes RUN_DIR/report.html.
            Prints the events emitted as one logfmt line on stderr (nothing with --quiet).
            """),
        version: shelflineVersion)

    @OptionGroup public var common: CommonOptions

    @Option(name: .customLong("run"), help: "The import's run directory.")
    public var runDirectory: String

    @Option(name: .long, help: "The imported file, for the activity's file name and size before parse has reported.")
    public var source: String?

    @Flag(name: .long, help: "Emit an update now if the counts changed, even within 2 s of the last one.")
    public var force = false

    public init() {}

    public func job(context: StageContext) throws -> StageJob<RenderStage.Arguments> {
        StageJob(arguments: RenderStage.Arguments(runDirectory: runDirectory, sourceFile: source, force: force))
    }
}
