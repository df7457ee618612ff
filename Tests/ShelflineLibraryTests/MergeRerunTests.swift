import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLibrary

/// Issue 10.4: merge outcomes are relative to the library as it stood before the import, however
/// often the import's merge runs (rerun after `clean --stage merge`, after a kill right after the
/// library was published, after its input was rebuilt).
@Suite struct MergeRerunTests {
    let temp = TemporaryDirectory("library-rerun-tests")
    var workspace: Workspace { Workspace(root: temp.file("ws")) }

    /// A library holding one book from an earlier import, and an import adding two books and updating that one.
    func prepare() throws -> ImportFixture {
        let earlier = try ImportFixture(
            directory: temp.file("earlier"),
            rows: [
                row(rec("Dune", by: "Frank Herbert", isbn13: "9780441172719", shelf: "to-read"), id: 1)
            ])
        let first = try MergeStage.run(earlier.request(importId: "run-0"), workspace: workspace)
        #expect(first.outcomes.added == 1)
        return try ImportFixture(
            directory: temp.file("this"),
            rows: [
                row(rec("Dune", by: "Frank Herbert", isbn13: "9780441172719", shelf: "read", rating: 5), id: 1),
                row(rec("Emma", by: "Jane Austen", shelf: "to-read"), id: 2),
                row(rec("Emma", by: "Jane Austen", shelf: "read"), id: 3),
                row(rec("Kindred", by: "Octavia E. Butler", isbn13: "9780807083697"), id: 4),
                ImportFixture.Row(raw: "5,\"broken", record: nil, reason: "unterminated quote"),
            ])
    }

    func ledgerBytes(_ fixture: ImportFixture) throws -> [UInt8] {
        var bytes: [UInt8] = []
        try GzipReader(path: fixture.directory + "/ledger.ndjson.gz").forEachLine { line, _ in
            bytes += Array(line) + [0x0A]
        }
        return bytes
    }

    @Test(.bug(id: 10)) func rerunMergeRelabelsAdded() throws {
        let fixture = try prepare()
        let first = try MergeStage.run(fixture.request(importId: "run-1"), workspace: workspace)
        #expect(first.outcomes.added == 2)
        #expect(first.outcomes.updated == 1)
        #expect(first.outcomes.duplicateInFile == 1)
        #expect(first.outcomes.rejected == 1)
        let library = fileBytes(workspace.libraryFile)
        let ledger = try ledgerBytes(fixture)

        // `clean --stage merge`: the stage's outputs go, the library keeps this import's books.
        for name in ["ledger.ndjson.gz", "review.json", "failed-rows.csv"] {
            try FileManager.default.removeItem(atPath: fixture.directory + "/" + name)
        }
        let again = try MergeStage.run(fixture.request(importId: "run-1"), workspace: workspace)
        #expect(again.outcomes == first.outcomes)
        #expect(try ledgerBytes(fixture) == ledger)
        #expect(fileBytes(workspace.libraryFile) == library)
        let entries = try NDJSONReader<LedgerEntry>(path: fixture.directory + "/ledger.ndjson.gz").readAll()
        #expect(entries.map(\.outcome) == [.updated, .added, .duplicateInFile, .added, .rejected])
    }

    @Test(.bug(id: 10)) func anotherImportOfTheSameRowsIsUpdated() throws {
        // The rule keys on the import, not on the rows: a different import of the same file updates.
        let fixture = try prepare()
        _ = try MergeStage.run(fixture.request(importId: "run-1"), workspace: workspace)
        let other = try MergeStage.run(fixture.request(importId: "run-2"), workspace: workspace)
        #expect(other.outcomes.added == 0)
        #expect(other.outcomes.updated == 3)
        #expect(other.outcomes.duplicateInFile == 1)
    }

    @Test(.bug(id: 10)) func bookCreatedByThisImportAndUpdatedLaterStaysAdded() throws {
        // run-1 creates Emma; run-2 changes it; run-1's merge rerun still counts Emma as added by run-1.
        let fixture = try prepare()
        let first = try MergeStage.run(fixture.request(importId: "run-1"), workspace: workspace)
        let later = try ImportFixture(
            directory: temp.file("later"),
            rows: [
                row(rec("Emma", by: "Jane Austen", shelf: "read", rating: 4), id: 9)
            ])
        let update = try MergeStage.run(later.request(importId: "run-2"), workspace: workspace)
        #expect(update.outcomes.updated == 1)
        let again = try MergeStage.run(fixture.request(importId: "run-1"), workspace: workspace)
        #expect(again.outcomes == first.outcomes)
    }

    @Test(.bug(id: 10)) func createdByIsReadByTheFastScannerAndTheDecoder() throws {
        // The scanner's reading of provenance, against the JSONDecoder fallback on the same lines.
        let fixture = try prepare()
        _ = try MergeStage.run(fixture.request(importId: "run-1"), workspace: workspace)
        var created: [String?] = []
        try GzipReader(path: workspace.libraryFile).forEachLine { bytes, _ in
            let fields = IndexLineScanner.scan(bytes)
            let decoded = try JSONDecoder().decode(LibraryFile.IndexEntry.self, from: Data(bytes))
            #expect(fields?.createdBy == decoded.createdBy)
            created.append(fields?.createdBy)
        }
        #expect(created.sorted { ($0 ?? "") < ($1 ?? "") } == ["run-0", "run-1", "run-1"])
    }
}
