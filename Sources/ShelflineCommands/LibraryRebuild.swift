import Foundation
import ShelflineCore
import ShelflineLibrary
import ShelflineOrchestrator
import ShelflineRender

/// Rebuilds the library from the imports stored under `runs/`, merged again in first-import order
/// with the review decisions re-applied: for a library an earlier identity rule wrongly folded, or
/// one damaged or lost. What the rows sharing an ISBN say of its title is learnt from every run
/// first (`ISBNTitles`), so a row filed under its main title alone (`War` with the ISBN of
/// `War: volume 0`) is its own book from the start; merge alone cannot part them once folded.
struct LibraryRebuild {
    var workspace: Workspace
    var config: PipelineConfig
    var configPath: String
    /// Keeps each run's ledger as rebuilt in `<ledgers>/<run id>/ledger.ndjson.gz`.
    var ledgers: String? = nil
    var cancellation = CancellationFlag()

    struct Outcome: Equatable {
        var runs: [String]
        var books: Int
        /// False when the rebuilt library is byte-identical to the one in place (nothing written).
        var changed: Bool
    }

    /// The runs whose merge completed, in the library's import order (`ImportOrder`), then by
    /// parse's manifest time (parse runs once per export; merge may run again). The same order
    /// decides which import wins a cell in a merge.
    func runs() -> [RunDirectory] {
        let merged = RunDirectory.all(in: workspace).filter { $0.manifest(.merge) != nil }
        let order = (try? ImportOrder.load(workspace: workspace).imports) ?? []
        let place = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: min)
        func time(_ run: RunDirectory) -> Double { (run.manifest(.parse) ?? run.manifest(.merge))?.finishedAt ?? 0 }
        return merged.sorted { (place[$0.id] ?? Int.max, time($0), $0.id) < (place[$1.id] ?? Int.max, time($1), $1.id) }
    }

    /// Gives a library without an import order its stored imports' order, so an older one run again still comes first.
    func placeEarlierImports() throws {
        guard !FileManager.default.fileExists(atPath: ImportOrder.path(in: workspace)),
            FileManager.default.fileExists(atPath: workspace.libraryFile)
        else { return }
        try ImportOrder(imports: runs().map(\.id)).write(workspace: workspace)
    }

    func run(progress: (String) -> Void) async throws -> Outcome {
        let files = RunFiles(config: config, stages: Stage.pipeline)
        // What a killed rebuild or merge left.
        LibraryScratch.sweep(workspace)
        let scratch = Workspace(root: LibraryScratch.rebuild.directory(in: workspace))
        try? FileManager.default.removeItem(atPath: scratch.root)
        defer { try? FileManager.default.removeItem(atPath: scratch.root) }
        try Workspace.makeDirectory(scratch.libraryDirectory)
        if FileManager.default.fileExists(atPath: workspace.decisionsFile) {
            try AtomicFile.write(
                Array(try Data(contentsOf: URL(fileURLWithPath: workspace.decisionsFile))), to: scratch.decisionsFile)
        }
        let runs = runs()
        try refuseChangedRuns(runs)
        var books = 0
        func name(_ role: StageFileRole) -> String { files.input(.merge, role) ?? MergeStage.description.defaultInput(role) }
        // Merge's one entry, as in an import, into the scratch workspace; quiet: the rebuild prints its own lines.
        let context = StageContext(
            config: config, configPath: configPath, workspace: scratch, stage: MergeStage.description,
            log: Logfmt(quiet: true), cancellation: cancellation)
        func stopIfCancelled() throws {
            if cancellation.isCancelled { throw TryLaterError("rebuild: stopped by a signal; the library is unchanged") }
        }
        let titles = try ISBNTitles.learn(
            from: runs.map { $0.file(name(.records)) },
            parameters: try context.parameters(DedupeParameters.self))
        for (number, run) in runs.enumerated() {
            try stopIfCancelled()
            let out = scratch.root + "/runs/" + run.id
            try Workspace.makeDirectory(out)
            let job = StageJob(
                inputs: [
                    .records: run.file(name(.records)), .parseReport: run.file(name(.parseReport)),
                    .rejects: run.file(name(.rejects)),
                ],
                outputs: [
                    .report: out + "/merge-report.json", .ledger: out + "/ledger.ndjson.gz",
                    .review: out + "/review.json", .failedRows: out + "/failed-rows.csv",
                ],
                arguments: MergeStage.Arguments(importId: run.id, isbnTitles: titles))
            let report = try await MergeStage.perform(job, context: context)
            books = report.libraryBooks
            if let ledgers {
                let kept = ledgers + "/" + run.id
                try Workspace.makeDirectory(kept)
                try AtomicFile.write(
                    Array(try Data(contentsOf: URL(fileURLWithPath: job.output(.ledger)))), to: kept + "/ledger.ndjson.gz")
            }
            progress("rebuild: \(number + 1)/\(runs.count) run \(run.id): \(report.libraryBooks) books")
        }
        let rebuilt = scratch.libraryFile
        guard FileManager.default.fileExists(atPath: rebuilt) else {
            return Outcome(runs: runs.map(\.id), books: 0, changed: false)
        }
        let lock = try MergeLock(workspace: workspace)
        defer { withExtendedLifetime(lock) {} }
        try stopIfCancelled()
        let order = ImportOrder(imports: runs.map(\.id))
        if (try? ImportOrder.load(workspace: workspace)) != order { try order.write(workspace: workspace) }
        if FileManager.default.contentsEqual(atPath: rebuilt, andPath: workspace.libraryFile) {
            return Outcome(runs: runs.map(\.id), books: books, changed: false)
        }
        // A damaged library is not made the previous generation: that one may be the good copy.
        let intact = (try? GzipReader(path: workspace.libraryFile).forEachLine { _, _ in }) != nil
        try LibraryFile(workspace: workspace).publish(rebuilt, keepingPrevious: intact)
        return Outcome(runs: runs.map(\.id), books: books, changed: true)
    }
}

extension LibraryRebuild {
    /// A run whose files were edited since its stages wrote them would be rebuilt from what no
    /// import wrote: refused before anything is merged.
    func refuseChangedRuns(_ runs: [RunDirectory]) throws {
        for run in runs {
            guard let file = try run.filesChanged(readBy: .merge).first else { continue }
            throw DataError(
                "rebuild: run \(run.id): \(run.file(file)) changed since the import wrote it (its manifest "
                    + "records another hash); nothing was rebuilt. Import that export again (`shelfline run --csv "
                    + "\(run.existingInput ?? "FILE")`) to redo the run from its stored copy, then rebuild")
        }
    }

    /// After an import that found books only a rebuild can part (`MergeReport.booksToRebuild`):
    /// rebuilds when the runs still hold every import. Never fails the import, which is in the
    /// library either way; returns the lines to show.
    func afterImport(log: Logfmt) async -> [String] {
        do {
            let missing = try importsMissingFromRuns()
            guard missing.isEmpty else {
                log.error(
                    "shelfline: some books of the library may hold another book's rows, but the library was not rebuilt: "
                        + "\(missing.count) of its imports are no longer stored under runs/ (removed by `shelfline clean`?), "
                        + "and a rebuild would lose their books (first: \(missing[0])); re-import those exports to part them")
                return []
            }
            let outcome = try await run { _ in }
            // Render wrote the page before the rebuild.
            if outcome.changed { _ = try LibraryPage.write(workspace: workspace) }
            return [
                "library rebuilt from \(outcome.runs.count) stored import(s), what every import says of its ISBNs known from the start: "
                    + "\(outcome.books) books" + (outcome.changed ? "" : " (unchanged)")
            ]
        } catch {
            log.error(
                "shelfline: some books of the library may hold another book's rows; rebuilding it failed: \(error); "
                    + "run `shelfline rebuild` once the cause is fixed")
            return []
        }
    }

    /// The import ids the library's books name that no finished run has: a rebuild would lose their books.
    func importsMissingFromRuns() throws -> [String] {
        let library = workspace.libraryFile
        guard FileManager.default.fileExists(atPath: library) else { return [] }
        struct Imports: Decodable {
            struct Contribution: Decodable { var importId: String }
            var provenance: [Contribution]
        }
        var imports = Set<String>()
        let decoder = JSONDecoder()
        try GzipReader(path: library).forEachLine { bytes, _ in
            for contribution in try decoder.decode(Imports.self, from: Data(bytes)).provenance {
                imports.insert(contribution.importId)
            }
        }
        return imports.subtracting(runs().map(\.id)).sorted()
    }
}
