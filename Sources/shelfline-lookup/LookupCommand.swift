import ArgumentParser
import Foundation
import ShelflineCore
import ShelflineLookup
import ShelflineStageCLI

#if canImport(Glibc)
    import Glibc
#endif

/// `shelfline-lookup`: enriches deduped records with edition metadata.
struct LookupCommand: PipelineStageCommand {
    public typealias Runs = LookupStage

    public static let configuration = CommandConfiguration(
        commandName: "shelfline-lookup",
        abstract: "Match records to editions from the local Open Library catalog and/or the Open Library API.",
        discussion: helpDiscussion(
            """
            Reads: INPUT (gzip NDJSON records from shelfline-dedupe); the catalog dump files (--catalog, or the \
            lookup stage's `catalog` parameter in pipeline.json, paths relative to that file); the workspace \
            cache (<workspace>/cache: catalog index, lookup-cache.sqlite).
            Writes: OUTPUT (every input record, with `match` and, when matched, `metadata`); --report JSON \
            (counts per status summing to the records read, requests, retries, 429s, cache hits, breaker trips); \
            --progress JSON (rewritten every second while running); the workspace cache.
            Sources: the lookup stage's `sources` parameter or --source; by default the local catalog when one is \
            configured, then the Open Library API (openLibrary.baseURL). When Open Library cannot be reached (name \
            resolution fails, or connections are refused even after the circuit breaker's probe), the rows it was \
            needed for end notEnriched with reason `offline` at once, are not cached, and one warning line says so.
            Match statuses: matchedByIsbn, matchedBySearch, needsReview (with candidates), notEnriched (with reason).
            A stop signal (SIGTERM/SIGINT) keeps every answer fetched so far in the cache and exits 75 (paused).
            """),
        version: shelflineVersion)

    @OptionGroup public var common: CommonOptions

    @Argument(help: "Input records (gzip NDJSON).")
    public var input: String

    @Option(name: .stageFile(.records, of: LookupStage.description), help: "Output records (gzip NDJSON).")
    public var output: String

    @Option(name: .stageFile(.report, of: LookupStage.description), help: "Report JSON to write.")
    public var report: String?

    @Option(name: .stageFile(.progress, of: LookupStage.description), help: "Progress JSON to keep updated while running.")
    public var progress: String?

    @Option(
        name: .long, help: "Catalog dump file (editions, works, authors; gzip or plain). Repeat per file; overrides the config.")
    public var catalog: [String] = []

    @Option(
        name: .long,
        help:
            "Metadata source to ask, in order: \(MetadataSources.names.joined(separator: ", ")). Repeatable; overrides the config (default: catalog when configured, then openlibrary; --source catalog stays offline)."
    )
    public var source: [String] = []

    public func job(context: StageContext) throws -> StageJob<LookupStage.Arguments> {
        StageJob(
            inputs: [.records: input], outputs: [.records: output, .report: report].compactMapValues { $0 }, progress: progress,
            arguments: LookupStage.Arguments(catalog: catalog, sources: source, terminal: isatty(STDERR_FILENO) == 1))
    }
}
