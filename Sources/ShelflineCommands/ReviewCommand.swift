import ArgumentParser
import Foundation
import ShelflineCore
import ShelflineLibrary
import ShelflineStageCLI

/// `shelfline review`: list the rows of an import that need a decision, and record decisions.
struct ReviewCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "review",
        abstract: "List rows whose metadata match is ambiguous and record accept/reject decisions.",
        discussion: helpDiscussion(
            """
            Reads the review list (review.json) of a run directory (default <workspace>/runs/latest, \
            or --run DIR) and <workspace>/library/decisions.json. `accept` and `reject` write \
            decisions.json (atomically, under <workspace>/library/.merge.lock); the next shelfline-merge \
            applies them: an accepted candidate's key becomes the book's edition key, a rejected row \
            keeps the export's data; both clear the review flag.
            """),
        subcommands: [List.self, Accept.self, Reject.self])

    /// Options every review subcommand takes.
    struct RunOptions: ParsableArguments {
        @OptionGroup public var common: CommonOptions

        @Option(name: .long, help: "Run directory whose review.json is meant (default: <workspace>/runs/latest).")
        public var run: String?

        func desk() throws -> ReviewDesk {
            let context = try common.context(stages: Stage.pipeline)
            return ReviewDesk(
                workspace: context.workspace, runDirectory: run,
                mergeReport: RunFiles(config: context.config, stages: context.stages).output(.merge, .report)
                    ?? MergeStage.description.defaultOutput(.report))
        }

        /// `accept`: a candidate; nil rejects them.
        func decide(row: Int, accept: String?, _ said: (ReviewDecision) -> String) async throws {
            try await reportingErrors(as: "shelfline review") {
                let decision = try desk().decide(row: row, accept: accept)
                if !common.quiet { print("row \(row): \(said(decision)); the next merge applies it") }
            }
        }
    }

    /// `review list`.
    struct List: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(
            commandName: "list", abstract: "Print the run's rows needing review with numbered candidates.",
            discussion: helpDiscussion(""))
        @OptionGroup public var options: RunOptions
        public func run() async throws {
            try await reportingErrors(as: "shelfline review") { print(try options.desk().listing(), terminator: "") }
        }
    }

    /// `review accept ROW CANDIDATE`.
    struct Accept: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(
            commandName: "accept", abstract: "Accept candidate CANDIDATE (number or key) for source line ROW.",
            discussion: helpDiscussion(""))
        @OptionGroup public var options: RunOptions
        @Argument(help: "Source line of the row, as `review list` shows it.") public var row: Int
        @Argument(help: "Candidate number (1 = best) or candidate key.") public var candidate: String
        public func run() async throws {
            try await options.decide(row: row, accept: candidate) { decision in
                "accepted \(decision.candidate?.key ?? "") for book \(decision.bookId)"
            }
        }
    }

    /// `review reject ROW`.
    struct Reject: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(
            commandName: "reject", abstract: "Keep the export's own data for source line ROW and clear its flag.",
            discussion: helpDiscussion(""))
        @OptionGroup public var options: RunOptions
        @Argument(help: "Source line of the row, as `review list` shows it.") public var row: Int
        public func run() async throws {
            try await options.decide(row: row, accept: nil) { decision in "rejected the candidates for book \(decision.bookId)" }
        }
    }
}
