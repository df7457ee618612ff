import ShelflineCore

/// The pipeline's stages: the one list every command learns the stages from, so executables, the
/// orchestrator and render cannot disagree. Here, render and the orchestrator know every stage
/// without linking any stage's code.
extension Stage {
    /// In `StageName`'s order: the names and their order are said once, there.
    public static let pipeline: [Stage] = StageName.allCases.map(entry)

    /// An exhaustive switch, so the compiler asks for an entry for each name.
    public static func entry(_ name: StageName) -> Stage {
        switch name {
        case .parse: .parse
        case .dedupe: .dedupe
        case .lookup: .lookup
        case .merge: .merge
        case .render: .render
        }
    }

    public static let parse = Stage(
        name: .parse,
        inputs: [StageFile(.export, .positional, defaultName: "{csv}")],
        outputs: [
            StageFile(.records, .output, defaultName: "parsed.ndjson.gz"),
            StageFile(.rejects, .option, defaultName: "rejects.ndjson.gz"),
            StageFile(.report, .option, defaultName: "parse-report.json"),
        ],
        unlistedOutputs: [StageFile(.texts, .foundByRole, defaultName: RecordTexts.fileName, besides: .records)],
        parameterStages: [.parse], algorithmVersion: 6, invocation: .files,
        activity: ActivityStep("Reading file…", share: 0.05))

    public static let dedupe = Stage(
        name: .dedupe,
        inputs: [StageFile(.records, .positional, defaultName: "parsed.ndjson.gz")],
        outputs: [
            StageFile(.records, .output, defaultName: "deduped.ndjson.gz"),
            StageFile(.report, .option, defaultName: "dedupe-report.json"),
        ],
        unlistedInputs: [StageFile(.library, .foundByRole, defaultName: "{library}")],
        parameterStages: [.dedupe], algorithmVersion: 3, invocation: .files,
        activity: ActivityStep("Finding duplicates…", share: 0.05))

    public static let lookup = Stage(
        name: .lookup,
        inputs: [StageFile(.records, .positional, defaultName: "deduped.ndjson.gz")],
        outputs: [
            StageFile(.records, .output, defaultName: "enriched.ndjson.gz"),
            StageFile(.report, .option, defaultName: "lookup-report.json"),
        ],
        progress: StageFile(.progress, .option, defaultName: "lookup-progress.json"),
        parameterStages: [.lookup], algorithmVersion: 2, invocation: .files,
        // Without a pipeline.json: a mirror, a loopback stand-in in tests.
        environmentParameters: [Stage.EnvironmentParameter("SHELFLINE_OPENLIBRARY_URL", "openLibrary.baseURL")],
        // Most of an import's time goes to asking the sources.
        activity: ActivityStep("Looking up books…", share: 0.85))

    public static let merge = Stage(
        name: .merge,
        inputs: [
            StageFile(.records, .positional, defaultName: "enriched.ndjson.gz"),
            StageFile(.parseReport, .option, defaultName: "parse-report.json"),
            StageFile(.rejects, .option, defaultName: "rejects.ndjson.gz"),
            StageFile(.decisions, .foundByRole, defaultName: "{decisions}"),
        ],
        outputs: [
            StageFile(.report, .option, defaultName: "merge-report.json"),
            StageFile(.ledger, .option, defaultName: "ledger.ndjson.gz"),
            StageFile(.review, .option, defaultName: "review.json"),
            StageFile(.failedRows, .option, defaultName: "failed-rows.csv"),
        ],
        progress: StageFile(.progress, .option, defaultName: "merge-progress.json"),
        unlistedInputs: [StageFile(.library, .foundByRole, defaultName: "{library}")],
        unlistedOutputs: [
            StageFile(.notEnrichedRows, .foundByRole, defaultName: "not-enriched.csv"),
            StageFile(.library, .foundByRole, defaultName: "{library}"),
        ],
        // Merge resolves keys exactly as dedupe did, so dedupe's parameters are its own too.
        parameterStages: [.dedupe, .merge], algorithmVersion: 6, invocation: .filesAndImportId,
        activity: ActivityStep("Saving to library…", share: 0.04))

    /// Finds every stage's files by role in the run directory; writes no report file.
    public static let render = Stage(
        name: .render,
        inputs: [
            StageFile(.report, .foundByRole, defaultName: "merge-report.json"),
            StageFile(.review, .foundByRole, defaultName: "review.json"),
        ],
        outputs: [StageFile(.page, .foundByRole, defaultName: "report.html")],
        parameterStages: [.render], algorithmVersion: 2, invocation: .runDirectory(subcommand: "import"),
        // Runs once the activity has ended: the bar's last step.
        activity: ActivityStep(nil, share: 0.01))
}
