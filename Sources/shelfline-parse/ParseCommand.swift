import ArgumentParser
import ShelflineCore
import ShelflineParse
import ShelflineStageCLI

extension FormatChoice: ExpressibleByArgument {}

/// `shelfline-parse`: one library export in, gzip NDJSON records, rejects and a report out.
@main
public struct ParseCommand: PipelineStageCommand {
    public typealias Runs = ParseStage

    public static let configuration = CommandConfiguration(
        commandName: "shelfline-parse",
        abstract: "Parse an export (\(FormatChoice.readableNames)) into gzip NDJSON records.",
        discussion: helpDiscussion(
            """
            Reads INPUT, a CSV or TSV export (UTF-8 with or without BOM; Latin-1/CP1252 bytes are repaired \
            per field). The format is recognised from header names (\(FormatChoice.readableNames); the \
            column mapping is pipeline.json's parse parameter `generic`).

            Writes OUTPUT (one BookRecord per line, gzip), REJECTS (rows that could not be parsed, with \
            line and reason; rows the source marks as not to import, such as Openreads' deleted books, are there \
            too, flagged skipped) and REPORT (rowsRead = rowsWritten + rowsRejected + rowsSkipped). All are published \
            atomically at the end; on an error none is touched. Exit 65 when the rejected share exceeds \
            maxRejectedShare (default 0.1) and at least minRejectedRows (default 10) rows were rejected; \
            the outputs are still written then. An output that is the input or another output is exit 64; \
            an output or input that is not a regular file (FIFO, device) is exit 73 / 66. See docs/parse.md.

            Any spreadsheet: --columns FIELD=HEADER,… names its columns (or "columns" in the parse \
            parameters). \(GenericMapping.accepted)
            """),
        version: shelflineVersion)

    @OptionGroup public var common: CommonOptions

    @Argument(help: "The export to read (CSV or TSV).")
    public var input: String

    @Option(name: .stageFile(.records, of: ParseStage.description), help: "Records file to write (gzip NDJSON).")
    public var output: String

    @Option(name: .stageFile(.rejects, of: ParseStage.description), help: "Rejected rows file to write (gzip NDJSON).")
    public var rejects: String?

    @Option(name: .stageFile(.report, of: ParseStage.description), help: "Report file to write (JSON).")
    public var report: String?

    @Option(help: ArgumentHelp(FormatChoice.help))
    public var format: FormatChoice?

    @Flag(
        help:
            "The file has no header row (a spreadsheet re-save dropped it): read its columns in the order of --format goodreads (24 or 31 columns, from the first row's width) or storygraph."
    )
    public var noHeader = false

    @Option(
        help: ArgumentHelp(GenericMapping.optionHelp, valueName: "FIELD=HEADER,…"))
    public var columns: String?

    public init() {}

    public func job(context: StageContext) throws -> StageJob<ParseStage.Arguments> {
        StageJob(
            inputs: [.export: input], outputs: [.records: output, .rejects: rejects, .report: report].compactMapValues { $0 },
            arguments: ParseStage.Arguments(
                format: format, noHeader: noHeader ? true : nil, columns: try columns.map(GenericMapping.init(argument:))))
    }
}
