import Foundation
import ShelflineCore
import ShelflineReports

#if canImport(Glibc)
    import Glibc
#endif

/// `shelfline-merge` settings (pipeline.json `stages[merge].parameters`).
public struct MergeParameters: ConfigDefaults, Sendable, Equatable {
    /// Scratch buckets the import is partitioned into by book id (a power of two, 1…4096).
    public var buckets = 256
    public var libraryLevel = Int(GzipWriter.libraryLevel)
    /// Also export rows whose book no source matched to not-enriched.csv, beside failed-rows.csv.
    public var failedRowsIncludeNotEnriched = true

    public init() {}

    public func validate(configPath: String) throws {
        guard buckets >= 1, buckets & (buckets - 1) == 0 else {
            throw ConfigError(
                path: configPath, key: "stages[merge].parameters.buckets", expected: "a power of two from 1 to 4096")
        }
    }
}

/// One line of the per-row ledger: where a source row went.
public struct LedgerEntry: Codable, Sendable, Equatable {
    public enum Outcome: String, Codable, Sendable { case rejected, added, updated, duplicateInFile, skipped }
    public var line: Int
    public var outcome: Outcome
    public var bookId: String?
    /// For `duplicateInFile`: the first row of this file that went to the same book.
    public var firstLine: Int?
    /// The identity key that decided.
    public var key: String?
    /// Absent: not looked up, counted as `notEnriched`.
    public var match: MatchStatus?
    /// Why the row was rejected or skipped.
    public var reason: String?

    /// The bytes `JSONEncoder.shelfline` writes, without its cost.
    public func appendJSON(to out: inout [UInt8]) {
        var writer = JSONObjectWriter(out: take(&out))
        writer.string("bookId", bookId)
        writer.int("firstLine", firstLine)
        writer.string("key", key)
        writer.int("line", line)
        writer.string("match", match?.rawValue)
        writer.string("outcome", outcome.rawValue)
        writer.string("reason", reason)
        out = writer.finish()
    }
}

extension LedgerEntry {
    init(notImported row: RejectedRow) {
        self.init(line: row.line, outcome: row.skipped == true ? .skipped : .rejected, reason: row.reason)
    }
}

/// `shelfline-merge`: folds one import's records into the library under the merge lock. Pass 1 resolves
/// records to books, writes the ledger and buckets the records by id; pass 2 streams the library in id
/// order, folding each bucket in and copying untouched books as they are. Published only if it differs.
public enum MergeStage {
    public static func run(
        _ job: StageJob<Arguments>, workspace: Workspace, dedupe: DedupeParameters = DedupeParameters(),
        parameters: MergeParameters = MergeParameters(),
        cancellation: CancellationFlag? = nil, log: Logfmt? = nil, now: (@Sendable () -> Date)? = nil
    ) throws -> MergeReport {
        // The report's paths are relative to it (`PipelineStage.perform` writes it).
        let records = job.input(.records), parseReport = job.input(.parseReport), reportPath = job.output(.report)
        let ledgerPath = job.output(.ledger), reviewPath = job.output(.review), failedRows = job.output(.failedRows)
        let parse = try readJSONFile(ParseReport.self, from: parseReport)
        var rejects: [RejectedRow] = []
        if let path = job.inputs[.rejects],
            parse.rowsRejected + (parse.rowsSkipped ?? 0) > 0 || FileManager.default.fileExists(atPath: path)
        {
            rejects = try NDJSONReader<RejectedRow>(path: path).readAll().sorted { $0.line < $1.line }
        }
        let importId = try job.arguments.importId ?? defaultImportId(parse: parse, records: records)

        let lock = try MergeLock(workspace: workspace)
        defer { withExtendedLifetime(lock) {} }

        LibraryScratch.sweep(workspace)
        let workDirectory = LibraryScratch.merge.directory(in: workspace)
        try Workspace.makeDirectory(workDirectory)
        defer { try? FileManager.default.removeItem(atPath: workDirectory) }
        let library = LibraryFile(workspace: workspace)
        let decisions = try ReviewDecisions.load(workspace: workspace).byBook
        let order = try ImportOrder.load(workspace: workspace)

        let bucketBits = parameters.buckets.trailingZeroBitCount
        func bucket(of id: UInt64) -> Int { bucketBits == 0 ? 0 : Int(id >> UInt64(64 - bucketBits)) }
        var outcomes = ImportOutcomes()
        let progress = MergeProgress(path: job.progress, records: max(0, parse.rowsRead - rejects.count), now: now)
        var progressFinished = false
        defer { if !progressFinished { progress.finish(finished: false, counts: outcomes.progressCounts) } }

        // Pass 1: resolve, ledger, partition; again with `ISBNTitles` when the resolver needs them (as
        // dedupe), once when rebuild gave them.
        var titles = job.arguments.isbnTitles
        var resolver: KeyResolver, libraryIds: [UInt64], buckets: [BucketFile], ledger: NDJSONWriter<LedgerEntry>
        var enrichment: EnrichmentCounts, review: ReviewSpool, notEnriched: FailedRowSpool
        let textsPath = parse.texts?.path(reportPath: parseReport)
        while true {
            resolver = try KeyResolver(scratchDirectory: workDirectory)
            libraryIds = try library.scan(into: &resolver, importId: importId)
            if let titles { try resolver.use(titles) }
            buckets = try (0..<parameters.buckets).map { try BucketFile(path: workDirectory + "/bucket-\($0)") }
            ledger = try NDJSONWriter<LedgerEntry>(path: ledgerPath)
            outcomes = ImportOutcomes()
            let skipped = rejects.count(where: { $0.skipped == true })
            outcomes.rejected = rejects.count - skipped
            outcomes.skipped = skipped > 0 ? skipped : nil
            enrichment = EnrichmentCounts()
            review = try ReviewSpool(directory: workDirectory)
            notEnriched = try FailedRowSpool(path: workDirectory + "/not-enriched")
            let firstPass = titles == nil
            let texts = try parse.texts.map { try RecordTextsReader(reference: $0, reportPath: parseReport) }
            var recordCount = 0
            var rejectIndex = 0
            var ledgerLine: [UInt8] = []
            func appendLedger(_ entry: LedgerEntry) throws {
                ledgerLine.removeAll(keepingCapacity: true)
                entry.appendJSON(to: &ledgerLine)
                try ledgerLine.withUnsafeBytes { try ledger.appendRaw($0) }
            }
            // On an error, the uncommitted ledger is removed with its writer.
            try KeyedRecords.forEach(path: records, parameters: dedupe) { keyed, bytes in
                if let cancellation, cancellation.isCancelled {
                    throw TryLaterError("shelfline-merge: interrupted before writing the library; it is unchanged")
                }
                let record = keyed.identity
                while rejectIndex < rejects.count, rejects[rejectIndex].line < record.line {
                    try appendLedger(LedgerEntry(notImported: rejects[rejectIndex]))
                    rejectIndex += 1
                }
                recordCount += 1
                let resolution = try resolver.resolve(keyed.keys, line: record.line)
                let outcome: LedgerEntry.Outcome
                switch resolution.status {
                case .new: outcome = .added; outcomes.added += 1
                case .inLibrary: outcome = .updated; outcomes.updated += 1
                case .duplicateInFile: outcome = .duplicateInFile; outcomes.duplicateInFile += 1
                }
                let status = record.match?.status ?? .notEnriched
                enrichment.count(status, source: record.match?.source)
                if status == .notEnriched {
                    try notEnriched.append(
                        FailedRow(
                            line: record.line, byteOffset: record.byteOffset, byteLength: record.byteLength,
                            reason: record.match?.reason ?? "not looked up",
                            fallbackText: [record.title, record.author ?? "", record.isbn13 ?? ""].joined(separator: " | "),
                            bookId: resolution.bookId))
                }
                let bookId = BookKeys.idString(resolution.bookId), candidates = record.match?.candidates ?? []
                func item() -> ReviewItem {
                    ReviewItem(
                        line: record.line, bookId: bookId, title: record.title, author: record.author,
                        isbn13: record.isbn13, candidates: candidates)
                }
                if status == .needsReview {
                    try review.append(item(), book: resolution.bookId)
                } else if status == .notEnriched, !candidates.isEmpty {
                    try review.append(item(), book: nil)
                }
                try appendLedger(
                    LedgerEntry(
                        line: record.line, outcome: outcome, bookId: bookId, firstLine: resolution.firstLine,
                        key: resolution.key, match: record.match?.status))
                func append(texts: UnsafeRawBufferPointer?) throws {
                    try buckets[bucket(of: resolution.bookId)].append(
                        id: resolution.bookId, fileLine: keyed.fileLine, keys: resolution.grantedKeys, texts: texts,
                        record: bytes)
                }
                if record.textsApart == true {
                    guard let texts else {
                        throw FileError.corrupt(
                            path: records, line: keyed.fileLine,
                            reason: "the record's review and notes are apart (textsApart), but \(parseReport) "
                                + "names no texts file: give merge the parse report of the parse that wrote it")
                    }
                    try texts.take(
                        line: record.line, byteOffset: record.byteOffset, byteLength: record.byteLength,
                        recordsPath: records
                    ) { try append(texts: $0) }
                } else {
                    try append(texts: nil)
                }
                if firstPass { progress.advance(by: 1, counts: { outcomes.progressCounts }, title: record.title) }
            }
            for reject in rejects[rejectIndex...] {
                try appendLedger(LedgerEntry(notImported: reject))
            }
            try texts?.finish(recordsPath: records)
            guard recordCount + rejects.count == parse.rowsRead else {
                throw LibraryError.countMismatch(
                    path: parseReport, rowsRead: parse.rowsRead, records: recordCount,
                    rejected: rejects.count)
            }
            for file in buckets { try file.close() }
            guard firstPass, resolver.needsISBNTitles else { break }
            ledger.abandon()
            titles = try ISBNTitles.learn(from: [records], parameters: dedupe)
        }
        let booksToRebuild = resolver.libraryBooksToRebuild
        // Freed before pass 2 takes its own memory.
        resolver.release()

        let plan = try BucketFile.plan(buckets, bucketBits: bucketBits, recordsPath: records)
        let fold = try foldLibrary(
            library: library, libraryIds: libraryIds, buckets: plan.paths, bucketOf: plan.bucket(of:), decisions: decisions,
            importId: importId, laterImports: order.imports(after: importId), level: Int32(parameters.libraryLevel),
            recordsPath: records, textsPath: textsPath, cancellation: cancellation, progress: progress,
            counts: outcomes.progressCounts)
        // On an error below, the uncommitted library is removed with its writer (`AtomicFile`).
        try ledger.commit()
        let reviewOpen = try review.write(
            importId: importId, to: reviewPath, keep: fold.flagged.contains,
            settled: { decisions[$0] != nil })
        let failed = rejects.filter { $0.skipped != true }.map {
            FailedRow(
                line: $0.line, byteOffset: $0.byteOffset, byteLength: $0.byteLength, reason: $0.reason,
                fallbackText: $0.raw, bookId: nil)
        }
        // `rejects` are sorted by line; not-enriched rows stream back, those whose book is still not enriched.
        let failedExport = try FailedRowsExport.write(rows: { _, body in try failed.forEach(body) }, parse: parse, to: failedRows)
        try notEnriched.close()
        let notEnrichedPath =
            parameters.failedRowsIncludeNotEnriched ? FailedRowsExport.notEnrichedPath(besides: failedRows) : nil
        let notEnrichedExport = try notEnrichedPath.map { path in
            try FailedRowsExport.write(
                rows: { texts, body in
                    try notEnriched.forEach(texts: texts) { row in
                        if !fold.enrichedAnyway.contains(row.bookId!) { try body(row) }
                    }
                }, parse: parse, to: path)
        }
        if let log, let reason = [failedExport, notEnrichedExport].lazy.compactMap({ $0?.fallbackReason }).first {
            log.event([
                "stage": "merge", "event": "failed-rows-fallback", "source": parse.input, "reason": reason,
            ])
        }
        if let writer = fold.writer {
            try library.keepPreviousGeneration()
            try writer.commit()
        }
        // Even when it changed nothing: an import's place is when it was first merged.
        let placed = order.appending(importId)
        if placed != order { try placed.write(workspace: workspace) }
        let report = MergeReport(
            importId: importId, rowsRead: parse.rowsRead, outcomes: outcomes, enrichment: enrichment,
            libraryBooks: fold.books, ledger: relative(ledgerPath, to: reportPath),
            review: relative(reviewPath, to: reportPath),
            failedRows: relative(failedRows, to: reportPath),
            notEnrichedRows: notEnrichedPath.map { relative($0, to: reportPath) }, reviewOpen: reviewOpen,
            booksToRebuild: booksToRebuild > 0 ? booksToRebuild : nil, notEnrichedRowCount: notEnrichedExport?.rows)
        progress.finish(finished: true, counts: outcomes.progressCounts)
        progressFinished = true
        log?.event([
            "stage": "merge", "import": importId, "rows": parse.rowsRead, "added": outcomes.added,
            "updated": outcomes.updated, "duplicateInFile": outcomes.duplicateInFile, "rejected": outcomes.rejected,
            "books": fold.books, "libraryChanged": fold.writer != nil,
        ])
        return report
    }

    struct FoldResult {
        /// Uncommitted; nil when the library would be byte-identical.
        var writer: NDJSONWriter<LibraryBook>?
        var books: Int
        /// Touched books left flagged for review.
        var flagged: AscendingIds
        /// Books enriched although some of the import's rows for them were not: those rows stay out of
        /// not-enriched.csv. Small where the list of books left not enriched would grow with the import.
        var enrichedAnyway: AscendingIds
    }

    static func foldLibrary(
        library: LibraryFile, libraryIds: [UInt64], buckets paths: [String], bucketOf: (UInt64) -> Int,
        decisions: [UInt64: ReviewDecision], importId: String, laterImports: Set<String> = [], level: Int32,
        recordsPath: String, textsPath: String? = nil,
        cancellation: CancellationFlag?, progress: MergeProgress? = nil,
        counts: [String: Int] = [:]
    ) throws -> FoldResult {
        let writer = try NDJSONWriter<LibraryBook>(path: library.path, level: level)
        var changed = false
        var books = 0
        var flagged = AscendingIds()
        var enrichedAnyway = AscendingIds()
        var current = -1
        var pending: [UInt64: [BucketFile.Entry]] = [:]
        var created: [CreatedBook] = []
        var newIndex = 0
        let decoder = JSONDecoder()

        // Buckets load and fold their new books on two threads ahead: decoding and folding are two thirds of
        // pass 2 (measured).
        let ids = AscendingIds(sorted: libraryIds)
        let loader = OrderedPrefetcher<LoadedBucket>(count: paths.count, threads: 2) { index in
            try LoadedBucket(
                path: paths[index], recordsPath: recordsPath, textsPath: textsPath, libraryIds: ids, decisions: decisions,
                importId: importId)
        }
        defer { loader.stop() }

        func fold(_ original: LibraryBook, id: UInt64, entries: [BucketFile.Entry]) -> LibraryBook {
            let book = foldBook(
                original, id: id, entries: entries, decision: decisions[id], importId: importId,
                laterImports: laterImports)
            progress?.advance(by: entries.count, counts: { counts }, title: book.title)
            if book.needsReview == true { flagged.append(id) }
            if book.isEnriched && entries.contains(where: \.notEnriched) { enrichedAnyway.append(id) }
            return book
        }

        func emitNew(before limit: UInt64?) throws {
            while newIndex < created.count, limit == nil || created[newIndex].id < limit! {
                let book = created[newIndex]
                newIndex += 1
                progress?.advance(by: book.records, counts: { counts }, title: book.title)
                if book.needsReview { flagged.append(book.id) }
                if book.enrichedAnyway { enrichedAnyway.append(book.id) }
                try book.line.withUnsafeBytes { try writer.appendRaw($0) }
                books += 1
                changed = true
            }
        }

        func advance(to target: Int) throws {
            while current < target {
                if current >= 0 { try emitNew(before: nil) }
                current += 1
                guard current < paths.count else { continue }
                if let cancellation, cancellation.isCancelled {
                    throw TryLaterError("shelfline-merge: interrupted before writing the library; it is unchanged")
                }
                let bucket = try loader.next()!
                pending = bucket.existing
                created = bucket.created
                newIndex = 0
            }
        }

        // Dropped uncommitted (an error, or nothing changed), the writer removes its temporary file.
        if library.exists {
            var count = 0
            try GzipReader(path: library.path).forEachLine { bytes, line in
                guard line - 1 < libraryIds.count else {
                    throw library.corrupt("changed while merging (more lines than scanned)")
                }
                count += 1
                let id = libraryIds[line - 1]
                try advance(to: bucketOf(id))
                try emitNew(before: id)
                let entries = pending.removeValue(forKey: id)
                let decision = decisions[id]
                books += 1
                guard entries != nil || decision != nil else {
                    try writer.appendRaw(bytes)
                    return
                }
                // `JSONDecoder` only for a line the scan cannot vouch for: it was 28 % of a second import's merge.
                let original: LibraryBook
                if let scanned = LibraryBookScan.scan(bytes) {
                    original = scanned
                } else {
                    do {
                        original = try decoder.decode(LibraryBook.self, from: Data(bytes))
                    } catch {
                        throw library.corrupt("line \(line): invalid book: \(describeDecoding(error))")
                    }
                }
                let book =
                    entries.map { fold(original, id: id, entries: $0) }
                    ?? {
                        var book = original
                        BookMerger.apply(decision!, to: &book)
                        return book
                    }()
                if book == original {
                    try writer.appendRaw(bytes)
                } else {
                    changed = true
                    try book.jsonLine.withUnsafeBytes { try writer.appendRaw($0) }
                }
            }
            guard count == libraryIds.count else { throw library.corrupt("changed while merging (fewer lines than scanned)") }
        }
        try advance(to: paths.count)
        return FoldResult(writer: changed ? writer : nil, books: books, flagged: flagged, enrichedAnyway: enrichedAnyway)
    }

    static func foldBook(
        _ original: LibraryBook?, id: UInt64, entries: [BucketFile.Entry], decision: ReviewDecision?,
        importId: String, laterImports: Set<String> = []
    ) -> LibraryBook {
        var book = BookMerger.fold(
            book: original, id: BookKeys.idString(id), records: entries.map(\.record),
            grantedKeys: entries.flatMap(\.keys), importId: importId, laterImports: laterImports)
        if let decision { BookMerger.apply(decision, to: &book) }
        return book
    }

    /// A book this import creates, folded and encoded by the loading thread.
    struct CreatedBook {
        var id: UInt64
        var line: [UInt8]
        /// Its rows and title, for progress.
        var records: Int
        var title: String
        var needsReview: Bool
        var enrichedAnyway: Bool
    }

    /// One bucket read back: the library's books' entries, and the created books in id order, encoded.
    struct LoadedBucket {
        var existing: [UInt64: [BucketFile.Entry]] = [:]
        var created: [CreatedBook] = []

        init(
            path: String, recordsPath: String, textsPath: String?, libraryIds: AscendingIds, decisions: [UInt64: ReviewDecision],
            importId: String
        ) throws {
            try BucketFile.forEachBook(path: path, recordsPath: recordsPath, textsPath: textsPath, removing: true) {
                id, entries in
                if libraryIds.contains(id) {
                    existing[id] = entries
                } else {
                    let book = foldBook(nil, id: id, entries: entries, decision: decisions[id], importId: importId)
                    created.append(
                        CreatedBook(
                            id: id, line: book.jsonLine, records: entries.count, title: book.title,
                            needsReview: book.needsReview == true,
                            enrichedAnyway: book.isEnriched && entries.contains(where: \.notEnriched)))
                }
            }
        }
    }

    /// The content hash of the source export if it is still there, else of the records file.
    static func defaultImportId(parse: ParseReport, records: String) throws -> String {
        let hash = try (try? ContentHash.file(parse.input)) ?? ContentHash.file(records)
        return String(hash.prefix(16))
    }

    /// `path` relative to the directory of `base` when it lies inside it.
    static func relative(_ path: String, to base: String) -> String {
        let directory = (base as NSString).deletingLastPathComponent
        guard !directory.isEmpty, path.hasPrefix(directory + "/") else { return path }
        return String(path.dropFirst(directory.count + 1))
    }
}

extension ImportOutcomes {
    var progressCounts: [String: Int] {
        ["added": added, "updated": updated, "duplicateInFile": duplicateInFile, "rejected": rejected]
    }
}
