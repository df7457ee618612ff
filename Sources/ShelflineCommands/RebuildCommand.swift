import ArgumentParser
import Foundation
import ShelflineCore
import ShelflineLibrary
import ShelflineOrchestrator
import ShelflineStageCLI

/// `shelfline rebuild`: the library again from the imports stored under `runs/` (`LibraryRebuild`).
struct RebuildCommand: OrchestratorCommand {
    public static let configuration = CommandConfiguration(
        commandName: "rebuild",
        abstract: "Rebuild the library from the stored imports, in order, with review decisions re-applied.",
        discussion: helpDiscussion(
            """
            Merges the records of every finished run under <workspace>/runs again, in the order the \
            exports were first imported, into an empty library, re-applying \
            <workspace>/library/decisions.json; then publishes it as the new library, keeping the \
            current one as library.previous.ndjson.gz. Use it after an upgrade that changes how \
            books are identified (books an earlier version folded together come apart), or to \
            recover a damaged or deleted library. What the rows sharing an ISBN say of its title is \
            learnt from every stored import first, so a row one export filed under its main title \
            alone is its book from the start (`shelfline run` rebuilds by itself after an import that \
            shows such a book: merge's report counts them, booksToRebuild). A library this version \
            built from the same runs comes back byte-identical, and then nothing is written. \
            --ledgers DIR keeps each import's ledger as rebuilt, DIR/<run-id>/ledger.ndjson.gz: \
            where its rows are in the rebuilt library. When the library holds books of an import \
            no longer stored under runs/ (`shelfline clean` removed it), the rebuild would lose \
            them: it refuses (65) and names the first such import, unless \
            --drop-unstored-imports says to rebuild without their books. A damaged or deleted \
            library is rebuilt from what runs/ holds. A run whose files were edited since its \
            stages wrote them (their manifests record other hashes) is refused (65), naming the run \
            and the file. Holds the workspace lock \
            (exit 75 while an import runs). SIGTERM/SIGINT stop it with 75, the library unchanged \
            and its scratch directory (library/.rebuild-PID) removed; one a killed rebuild left is \
            removed by the next rebuild or merge. The runs' own files are not changed; the next `run` \
            of an import re-merges it (a no-op for the library).
            """))

    static var reportedName: String { "shelfline" }

    @OptionGroup public var common: CommonOptions

    @Option(name: .long, help: "Keep each import's ledger as rebuilt in DIR/<run-id>/ledger.ndjson.gz.")
    var ledgers: String?

    @Flag(
        name: .long,
        help: "Rebuild even though the library holds books of imports no longer stored under runs/ (their books are dropped).")
    var dropUnstoredImports = false

    public func execute(context: StageContext) async throws {
        let lock = try WorkspaceLock(workspace: context.workspace, now: Date())
        defer { withExtendedLifetime(lock) {} }
        // Checked now, as `run` checks them, not mid-rebuild.
        _ = try context.parameters(DedupeParameters.self)
        _ = try context.parameters(MergeParameters.self)
        let rebuild = LibraryRebuild(
            workspace: context.workspace, config: context.config, configPath: context.configPath,
            ledgers: try ledgers.map { try Workspace.absolute($0, role: .output) },
            cancellation: context.cancellation)
        if !dropUnstoredImports {
            // A library too damaged to read is rebuilt from what runs/ holds.
            let missing = (try? rebuild.importsMissingFromRuns()) ?? []
            if let first = missing.first {
                throw DataError(
                    "rebuild: the library holds books of \(missing.count) import(s) no longer stored under "
                        + "runs/ (removed by `shelfline clean`?; first: \(first)), which a rebuild would lose; re-import "
                        + "those exports first, or pass --drop-unstored-imports to rebuild without their books")
            }
        }
        let outcome = try await rebuild.run { line in if !common.quiet { print(line) } }
        if !common.quiet {
            let what = outcome.changed ? "library rebuilt" : "library unchanged (already as the runs build it)"
            print("\(what): \(outcome.books) books from \(outcome.runs.count) import(s); \(context.workspace.libraryFile)")
        }
    }
}
