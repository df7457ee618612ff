import ArgumentParser
import Foundation
import ShelflineCore
import ShelflineLibrary
import ShelflineStageCLI

/// `shelfline-merge`: folds an import's records into the persistent library.
struct MergeCommand: PipelineStageCommand {
    public typealias Runs = MergeStage

    public static let configuration = CommandConfiguration(
        commandName: "shelfline-merge",
        abstract: "Fold an import's records into the persistent library; account for every row.",
        discussion: helpDiscussion(
            """
            Reads INPUT (gzip NDJSON records, enriched by lookup or straight from parse/dedupe), \
            --parse-report, --rejects, the library <workspace>/library/library.ndjson.gz and review \
            decisions <workspace>/library/decisions.json. Writes a new library generation (only when \
            something changed; the previous one is kept as library.previous.ndjson.gz), --report \
            (outcomes rejected+added+updated+duplicateInFile = rowsRead, enrichment counts; \
            booksToRebuild: library books this import showed to be another title than they were \
            filed under, which only `shelfline rebuild` parts), --ledger \
            (one line per source row), --review (rows needing review), --failed-rows (the source's \
            header and the original bytes of rejected and not-enriched rows) and, with --progress, a \
            progress JSON rewritten about every second while it runs. Holds an exclusive lock \
            on <workspace>/library/.merge.lock while it reads and writes the library. A corrupt input \
            or library is exit 65 and leaves the library untouched.
            """),
        version: shelflineVersion)

    @OptionGroup public var common: CommonOptions

    @Argument(help: "Records to merge (gzip NDJSON).")
    public var input: String

    @Option(name: .stageFile(.parseReport, of: MergeStage.description), help: "parse-report.json of the same run.")
    public var parseReport: String

    @Option(name: .stageFile(.rejects, of: MergeStage.description), help: "Rejected rows of the same run (gzip NDJSON).")
    public var rejects: String?

    @Option(name: .stageFile(.report, of: MergeStage.description), help: "Merge report JSON to write.")
    public var report: String = MergeStage.description.defaultOutput(.report)

    @Option(name: .stageFile(.ledger, of: MergeStage.description), help: "Per-row ledger to write (gzip NDJSON).")
    public var ledger: String = MergeStage.description.defaultOutput(.ledger)

    @Option(name: .stageFile(.review, of: MergeStage.description), help: "Review list to write (JSON).")
    public var review: String = MergeStage.description.defaultOutput(.review)

    @Option(
        name: .stageFile(.failedRows, of: MergeStage.description),
        help: "Failed rows to write (CSV with the source's own header).")
    public var failedRows: String = MergeStage.description.defaultOutput(.failedRows)

    @Option(name: .long, help: "Import id for provenance (default: content hash of the source export).")
    public var importId: String?

    @Option(
        name: .stageFile(.progress, of: MergeStage.description),
        help: "Progress JSON to rewrite about every second while merging.")
    public var progress: String?

    public func job(context: StageContext) throws -> StageJob<MergeStage.Arguments> {
        StageJob(
            inputs: [.records: input, .parseReport: parseReport, .rejects: rejects].compactMapValues { $0 },
            outputs: [.report: report, .ledger: ledger, .review: review, .failedRows: failedRows],
            progress: progress, arguments: MergeStage.Arguments(importId: importId))
    }
}
