import ArgumentParser
import Foundation
import ShelflineCore
import ShelflineLibrary
import ShelflineStageCLI

/// `shelfline-dedupe`: marks each parsed record new, duplicate in the file, or already in the library.
@main
struct DedupeCommand: PipelineStageCommand {
    public typealias Runs = DedupeStage

    public static let configuration = CommandConfiguration(
        commandName: "shelfline-dedupe",
        abstract: "Mark each parsed record new, a duplicate of an earlier row, or already in the library.",
        discussion: helpDiscussion(
            """
            Reads INPUT (gzip NDJSON records from shelfline-parse) and the library at \
            <workspace>/library/library.ndjson.gz if it exists (read only). Writes every record, none \
            dropped, with a `dedupe` mark (status new|duplicateInFile|inLibrary, the deciding key, the \
            first line, the book id) to OUTPUT, and counts to --report. Keys: canonical ISBN-13, else \
            normalised title + author surname. Parameters: stages[dedupe].parameters (docs/library.md).
            """),
        version: shelflineVersion)

    @OptionGroup public var common: CommonOptions

    @Argument(help: "Parsed records (gzip NDJSON).")
    public var input: String

    @Option(name: .stageFile(.records, of: DedupeStage.description), help: "Marked records (gzip NDJSON).")
    public var output: String

    @Option(name: .stageFile(.report, of: DedupeStage.description), help: "Report JSON.")
    public var report: String?

    public func job(context: StageContext) throws -> StageJob<NoStageArguments> {
        StageJob(inputs: [.records: input], outputs: [.records: output, .report: report].compactMapValues { $0 })
    }
}
