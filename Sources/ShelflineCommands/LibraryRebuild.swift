import Foundation
import ShelflineCore
import ShelflineLibrary
import ShelflineOrchestrator

/// Rebuilds the library from the imports stored under `runs/`: each finished run's records merged
/// again, in the order they were first imported, into an empty library with the review decisions
/// re-applied; then published as a new generation (the current one kept as `library.previous`).
///
/// What it is for: a library written by an earlier identity rule (issue 21: books wrongly folded
/// come apart), or one damaged or lost (no previous generation needed). Merge is deterministic,
/// so a library built by this version from the same runs comes back byte-identical, and nothing
/// is written. The runs' own files are not touched; each merge's report, ledger and review list
/// go to a scratch directory removed at the end.
struct LibraryRebuild {
    var workspace: Workspace
    var config: PipelineConfig
    var dedupe: DedupeParameters
    var merge: MergeParameters

    struct Outcome: Equatable {
        var runs: [String]
        var books: Int
        /// False when the rebuilt library is byte-identical to the one in place (nothing written).
        var changed: Bool
    }

    /// The runs whose merge completed, oldest import first (parse's manifest time: a run's parse
    /// runs once, when the export is first imported; merge may run again later).
    func runs() -> [RunDirectory] {
        let merged = RunDirectory.all(in: workspace).filter { $0.manifest(.merge) != nil }
        func time(_ run: RunDirectory) -> Double { (run.manifest(.parse) ?? run.manifest(.merge))?.finishedAt ?? 0 }
        return merged.sorted { (time($0), $0.id) < (time($1), $1.id) }
    }

    func run(progress: (String) -> Void) throws -> Outcome {
        let files = RunFiles(config: config)
        let scratch = Workspace(root: workspace.libraryDirectory + "/.rebuild-\(getpid())")
        try? FileManager.default.removeItem(atPath: scratch.root)
        defer { try? FileManager.default.removeItem(atPath: scratch.root) }
        try Workspace.makeDirectory(scratch.libraryDirectory)
        if FileManager.default.fileExists(atPath: workspace.decisionsFile) {
            try AtomicFile.write(Array(try Data(contentsOf: URL(fileURLWithPath: workspace.decisionsFile))), to: scratch.decisionsFile)
        }
        let runs = runs()
        var books = 0
        func name(_ role: StageFileRole) -> String { files.input(.merge, role) ?? StageName.merge.stage.defaultInput(role) }
        for (number, run) in runs.enumerated() {
            let out = scratch.root + "/runs/" + run.id
            try Workspace.makeDirectory(out)
            let request = MergeRequest(records: run.file(name(.records)), parseReport: run.file(name(.parseReport)),
                                       rejects: run.file(name(.rejects)), report: out + "/merge-report.json",
                                       ledger: out + "/ledger.ndjson.gz", review: out + "/review.json",
                                       failedRows: out + "/failed-rows.csv", importId: run.id, progress: nil)
            let report = try MergeStage.run(request, workspace: scratch, dedupe: dedupe, parameters: merge)
            books = report.libraryBooks
            progress("rebuild: \(number + 1)/\(runs.count) run \(run.id): \(report.libraryBooks) books")
        }
        let rebuilt = scratch.libraryFile
        guard FileManager.default.fileExists(atPath: rebuilt) else {
            return Outcome(runs: runs.map(\.id), books: 0, changed: false)
        }
        let lock = try MergeLock(workspace: workspace)
        defer { withExtendedLifetime(lock) {} }
        if FileManager.default.contentsEqual(atPath: rebuilt, andPath: workspace.libraryFile) {
            return Outcome(runs: runs.map(\.id), books: books, changed: false)
        }
        // A damaged library is not made the previous generation: that one may be the good copy.
        let intact = (try? GzipReader(path: workspace.libraryFile).forEachLine { _, _ in }) != nil
        try LibraryFile(workspace: workspace).publish(rebuilt, keepingPrevious: intact)
        return Outcome(runs: runs.map(\.id), books: books, changed: true)
    }
}
