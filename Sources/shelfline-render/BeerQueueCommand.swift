import ArgumentParser
import Foundation
import ShelflineBeerQueue
import ShelflineCore
import ShelflineRender
import ShelflineStageCLI

/// `shelfline-render beer-queue`: one observation of the member's beer queue.
public struct BeerQueueCommand: RenderSubcommand {
    public static let configuration = CommandConfiguration(
        commandName: "beer-queue",
        abstract: "Emit the beer-queue Live Activity snapshot from a saved page, a JSON file or a live poll.",
        discussion: helpDiscussion(
            """
            Reads PAGE (a saved memberQueues.php), FILE (a JSON queue) or, with --poll, GET <beerQueue.host>/memberQueues.php
            with the cookie in beerQueue.credentialsFile (which must be mode 0600). Settings: pipeline.json `beerQueue`.
            Writes <workspace>/activity/beer-queue.json, beer-queue.history.ndjson and beer-queue.budget.json
            (at most beerQueue.maxUpdatesPerHour periodic updates per hour; --user-triggered ones do not count)
            and beer-queue.report.json (rows read, listed and skipped as malformed, with the reasons).
            Visitor mode (beerQueue.visitor) writes nothing. The cookie is sent only to beerQueue.host's origin
            (https://, or http:// to a loopback address) and is never printed or written.
            A login page ends the activity and exits 78. Anything else that is not the queue keeps the last
            queue, marks it offline and exits 75 when it could not be fetched (network, HTTP error, a redirect
            to another origin, an answer over 8 MiB) or 65 when it is not a queue page (or every row is
            malformed; single malformed rows are skipped and counted). A state file that cannot be read is set
            aside as <name>.corrupt-<time> and rebuilt.
            """),
        version: shelflineVersion)

    @OptionGroup public var common: CommonOptions

    @Option(name: .customLong("html"), help: "A saved memberQueues.php page.")
    public var htmlPage: String?

    @Option(name: .customLong("json"), help: "A JSON queue file: [{\"id\", \"name\", \"date\"}] or {\"beers\": […]}.")
    public var jsonFile: String?

    @Flag(name: .long, help: "Fetch the queue from beerQueue.host with the session cookie.")
    public var poll = false

    @Flag(name: .customLong("user-triggered"), help: "The member asked for this refresh: not limited by the hourly budget.")
    public var userTriggered = false

    public init() {}

    public func validate() throws {
        let chosen = [htmlPage != nil, jsonFile != nil, poll].filter { $0 }.count
        guard chosen == 1 else { throw ValidationError("give exactly one of --html PAGE, --json FILE, --poll") }
    }

    public func execute(context: StageContext) async throws {
        let source: BeerQueueSource =
            if let htmlPage { .html(path: htmlPage) } else if let jsonFile { .json(path: jsonFile) } else { .poll }
        let parameters = try context.parameters(RenderParameters.self)
        let job = BeerQueueJob(
            config: context.config.beerQueue, configPath: context.configPath,
            workspace: context.workspace, historyLimit: parameters.historyLimit)
        _ = try await job.run(source: source, now: context.now(), userTriggered: userTriggered, log: context.log)
    }
}
