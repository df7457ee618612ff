/// Reports: the report files one stage writes and others read, in one place.
///
/// What it is for: parse's report (`ParseReport`: merge reads the source's header and layout from
/// it, render its counts) and merge's (`MergeReport`, with `ImportOutcomes` and lookup's
/// `EnrichmentCounts`: the orchestrator's summary, notify's event, render's activity and page).
/// Each is read by modules that must not link the stage that writes it (the orchestrator links no
/// stage library; render, dedupe and merge do not link the CSV parser), so the types sit here
/// rather than in their stage's library, and not in ShelflineCore, which holds nothing
/// stage-specific. A report only one stage knows (dedupe's, lookup's) stays in its library.
/// What it must not do: read or write files, or depend on anything but ShelflineCore.
public enum ShelflineReports {}
