import Foundation
import ShelflineCore

/// The lookup stage: reads records, asks the chained sources, writes every record back with its
/// `match` (and `metadata` when matched) and returns the report. Knows nothing of the command line.
public struct LookupStage {
    let job: StageJob<Arguments>
    var arguments: Arguments { job.arguments }

    /// Config, then command-line overrides, validated.
    func parameters(context: StageContext) throws -> LookupParameters {
        var parameters = try LookupParameters.decoded(
            from: context.config, path: context.configPath, registry: arguments.registry)
        for name in arguments.sources where parameters.registered(name) == nil {
            throw UsageError(
                "--source \(name): unknown metadata source, expected one of \(arguments.registry.map { $0.sourceName }.joined(separator: ", "))"
            )
        }
        if !arguments.sources.isEmpty { parameters.sources = arguments.sources }
        // Relative to pipeline.json, so the stage works from any run directory.
        let base = URL(fileURLWithPath: context.configPath).deletingLastPathComponent()
        parameters.resolvePaths { $0.hasPrefix("/") ? $0 : base.appendingPathComponent($0).path }
        if !arguments.catalog.isEmpty { parameters.catalog = arguments.catalog }
        try parameters.validate(configPath: context.configPath)
        return parameters
    }

    @discardableResult
    func run(context: StageContext) async throws -> LookupReport {
        let parameters = try parameters(context: context)
        let survey = try InputSurvey(path: job.input(.records))
        var report = LookupReport(input: job.input(.records), output: job.output(.records), sources: parameters.sources)

        // Before the sources: the orchestrator sees the stage alive while a large index builds.
        let progress = ProgressReporter(
            stage: StageName.lookup.rawValue, total: survey.records, path: job.progress,
            terminal: arguments.terminal, log: context.log, now: context.now)
        var started = false
        defer { if !started { progress.finish(finished: false) } }
        var sources: [any MetadataSource] = []
        let setup = SourceSetup(
            configPath: context.configPath, clock: arguments.clock, userAgent: parameters[OpenLibrarySource.self].userAgent,
            cacheDirectory: context.workspace.cacheDirectory, log: context.log, now: context.now(),
            isCancelled: { context.cancellation.isCancelled },
            announce: { progress.update(processed: 0, counts: [:], title: $0, author: nil) })
        for name in parameters.sources {
            guard let source = try parameters.registered(name)!.make(from: parameters, setup: setup) else { continue }
            if let catalog = source as? CatalogSource {
                let index = catalog.index
                report.catalog = CatalogSummary(
                    index: index.path, built: index.built, editions: index.stats.editions,
                    skippedLines: index.stats.skippedLines,
                    duplicateKeys: index.stats.duplicateKeys,
                    skippedReasons: index.stats.skippedReasons)
            }
            sources.append(source)
        }
        let remote = sources.compactMap { $0 as? any HTTPMetadataSource }
        defer { for source in remote { source.client.shutdown() } }
        var cache: LookupCache?
        if !remote.isEmpty {
            try Workspace.makeDirectory(context.workspace.cacheDirectory)
            let path = context.workspace.cacheDirectory + "/lookup-cache.sqlite"
            cache = try CacheFiles.opening(path, what: "lookup cache", now: context.now(), log: context.log) {
                try LookupCache(
                    path: path, positiveLifetime: parameters.cacheDays * 86_400,
                    negativeLifetime: parameters.negativeCacheDays * 86_400, lifetimes: parameters.cacheLifetimes)
            }
        }
        let engine = LookupEngine(
            sources: sources, cache: cache, matcher: parameters.match.matcher,
            searchLimit: parameters.searchLimit, now: context.now)
        let writer = try NDJSONWriter<BookRecord>(path: job.output(.records))

        started = true
        let chunks = RecordChunks(path: job.input(.records), chunkSize: parameters.chunkSize)
        // The writer and survey are used only by this task until it ends; the stage awaits it.
        let owned = UncheckedSendable((writer, survey, report))
        let processing = Task {
            let (writer, survey, report) = owned.value
            return try await Self.process(
                chunks: chunks, engine: engine, writer: writer, survey: survey,
                progress: progress, report: report)
        }
        let watcher = Task {
            while !Task.isCancelled, !context.cancellation.isCancelled { try? await Task.sleep(nanoseconds: 100_000_000) }
            if context.cancellation.isCancelled { processing.cancel() }
        }
        defer { watcher.cancel() }
        do {
            report = try await processing.value
        } catch {
            chunks.stop()
            writer.abandon()
            progress.finish(finished: false)
            cache?.checkpoint()
            if context.cancellation.isCancelled || error is CancellationError {
                throw TryLaterError(
                    "import paused: lookup stopped by a signal before finishing its \(survey.records) records; "
                        + "answers fetched so far are cached and will not be asked again; run the import again to resume")
            }
            // Damage a query met deep inside the index or cache: set aside, so that the next run
            // rebuilds it instead of failing the same way.
            if case LookupError.database(let path, let reason) = error, path == report.catalog?.index || path == cache?.path,
                reason.contains("malformed") || reason.contains("not a database"),
                let aside = try? CorruptFile.setAside(path, now: context.now())
            {
                context.log.error(
                    "shelfline-lookup: warning: \(path) is damaged (\(reason)); set aside as \(aside): "
                        + "the next run rebuilds it")
            }
            throw error
        }
        try writer.commit()
        cache?.checkpoint()
        report.cacheHits = engine.cacheHits
        for source in remote {
            let counters = await source.client.snapshot()
            report.http[source.name] = counters
            report.requests += counters.requests
            report.retries += counters.retries
            report.rateLimited += counters.rateLimited
            report.breakerTrips += counters.breakerTrips
            if let reason = counters.quotaSpent {
                context.log.error(
                    "shelfline-lookup: warning: source '\(source.name)' (\(source.endpoint)) answered that its quota is spent "
                        + "(\(reason)); not asked again this run, its rows went on to the next source; the next run asks again")
            } else if let reason = counters.offline {
                // Offline but every row found elsewhere (e.g. the catalog): nothing to tell.
                guard let offline = report.notEnrichedReasons["offline"], offline > 0 else { continue }
                context.log.error(
                    "shelfline-lookup: warning: source '\(source.name)' (\(source.endpoint)) is offline (\(reason)); "
                        + "\(offline) records marked notEnriched (offline) and not cached; "
                        + "connect to the network and run the import again to enrich them, or set the lookup stage's \"sources\" "
                        + "to [\"catalog\"] in \(context.configPath) to work offline")
            } else if counters.breakerTrips > 0 {
                context.log.error(
                    "shelfline-lookup: warning: source '\(source.name)' (\(source.endpoint)) was unavailable; \(report.notEnrichedReasons["source unavailable"] ?? 0) records marked notEnriched (source unavailable)"
                )
            }
        }
        progress.finish(finished: true)
        context.log.event([
            "stage": "lookup", "event": "done", "records": report.recordsRead,
            "matchedByIsbn": report.counts.matchedByIsbn, "matchedBySearch": report.counts.matchedBySearch,
            "needsReview": report.counts.needsReview, "notEnriched": report.counts.notEnriched,
            "requests": report.requests, "cacheHits": report.cacheHits,
        ])
        return report
    }

    /// Resolve, reuse answers for in-file duplicates, write in input order.
    private static func process(
        chunks: RecordChunks, engine: LookupEngine, writer: NDJSONWriter<BookRecord>,
        survey: InputSurvey, progress: ProgressReporter, report: LookupReport
    ) async throws -> LookupReport {
        var report = report
        var output = OutputLines()
        var firstAnswers: [Int: KeptAnswer] = [:]
        var lastKept: KeptAnswer?
        // Answers no later duplicate needs are swept whenever the table has doubled (amortised O(1)).
        var sweepAt = 1024
        var counts: [String: Int] = [:]
        for try await chunk in chunks.stream {
            try Task.checkCancellation()
            var outcomes = [LookupOutcome?](repeating: nil, count: chunk.count)
            var queries: [RecordQuery] = []
            var queryOwner: [Int] = []
            var copies: [(Int, Int)] = []
            var indexOfLine: [Int: Int] = [:]
            // By index: `for item in chunk` copies each record (a score of strings retained and released).
            for index in chunk.indices {
                if let mark = chunk[index].record.dedupe, mark.status == .duplicateInFile, let first = mark.firstLine {
                    if let answer = firstAnswers[first] {
                        outcomes[index] = answer.outcome
                        report.duplicatesReused += 1
                        continue
                    }
                    if let earlier = indexOfLine[first] {
                        copies.append((index, earlier))
                        continue
                    }
                }
                indexOfLine[chunk[index].record.line] = index
                queryOwner.append(index)
                queries.append(RecordQuery(record: chunk[index].record))
            }
            let base = report.recordsWritten
            let finishedCount = LockedValue(0)
            let owners = queryOwner
            let titles = chunk.map { ($0.record.title, $0.record.author) }
            let countsSoFar = counts
            let resolved = try await engine.resolve(queries) { queryIndex in
                let done = finishedCount.update { count in
                    count += 1
                    return count
                }
                let (title, author) = titles[owners[queryIndex]]
                progress.update(processed: base + done, counts: countsSoFar, title: title, author: author)
            }
            for (queryIndex, outcome) in resolved.enumerated() { outcomes[queryOwner[queryIndex]] = outcome }
            for (index, earlier) in copies {
                outcomes[index] = outcomes[earlier]
                report.duplicatesReused += 1
            }
            for index in chunk.indices {
                let outcome = outcomes[index]!
                try output.write(chunk[index], outcome, to: writer)
                report.recordsRead += 1
                report.recordsWritten += 1
                report.counts.count(outcome.match.status)
                if let source = outcome.match.source {
                    switch outcome.match.status {
                    case .matchedByIsbn: report.matchesBySource[source, default: SourceMatchCounts()].byIsbn += 1
                    case .matchedBySearch: report.matchesBySource[source, default: SourceMatchCounts()].bySearch += 1
                    case .needsReview, .notEnriched: break
                    }
                }
                counts[outcome.match.status.rawValue, default: 0] += 1
                if outcome.match.status == .notEnriched {
                    report.notEnrichedReasons[outcome.match.reason ?? "unknown", default: 0] += 1
                    if outcome.askAgain { report.rowsToAskAgain = (report.rowsToAskAgain ?? 0) + 1 }
                }
                let line = chunk[index].record.line
                if survey.lastReference[line] != nil {
                    if lastKept?.outcome != outcome { lastKept = KeptAnswer(outcome) }
                    firstAnswers[line] = lastKept
                }
            }
            if firstAnswers.count >= sweepAt, let done = chunk.last?.fileLine {
                firstAnswers = firstAnswers.filter { (survey.lastReference[$0.key] ?? 0) > done }
                sweepAt = max(1024, 2 * firstAnswers.count)
            }
            progress.update(
                processed: report.recordsWritten, counts: counts, title: chunk.last?.record.title,
                author: chunk.last?.record.author)
            chunks.consumed()
        }
        return report
    }
}

/// An answer kept for later duplicates of its row. Boxed: a `LookupOutcome` is a few hundred bytes
/// of mostly empty optionals; consecutive equal answers (mostly "no candidate") share one box.
final class KeptAnswer: Sendable {
    let outcome: LookupOutcome
    init(_ outcome: LookupOutcome) { self.outcome = outcome }
}

/// Hands a value to one task that is its only user until the handing code awaits it.
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Writes the input line's bytes with `match` (and `metadata`) spliced in after the record's own
/// members: copied, never re-encoded. A line that already carries an answer is re-encoded whole,
/// so no member appears twice.
struct OutputLines {
    private var line: [UInt8] = []
    private var lastMatch: (MatchResult, [UInt8])?
    /// Reused across lines instead of allocated for each.
    private var members: [(String, [UInt8])] = []

    mutating func write(_ item: InputRecord, _ outcome: LookupOutcome, to writer: NDJSONWriter<BookRecord>) throws {
        guard !item.annotated else {
            var record = try JSONDecoder().decode(BookRecord.self, from: Data(item.bytes))
            record.match = outcome.match
            record.metadata = outcome.metadata
            try writer.append(record)
            return
        }
        if lastMatch?.0 != outcome.match { lastMatch = (outcome.match, try AnswerJSON.match(outcome.match)) }
        members.removeAll(keepingCapacity: true)
        members.append(("match", lastMatch!.1))
        if let metadata = outcome.metadata { members.append(("metadata", AnswerJSON.metadata(metadata))) }
        line.removeAll(keepingCapacity: true)
        item.bytes.withUnsafeBytes { BookRecordScan.splice($0, adding: members, into: &line) }
        try line.withUnsafeBytes { try writer.appendRaw($0) }
    }
}
