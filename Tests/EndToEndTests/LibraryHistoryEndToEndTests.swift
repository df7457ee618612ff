import Foundation
import ShelflineCore
import TestSupport
import Testing

/// The library's state across imports, through `shelfline run` and the built executables: an older
/// export imported again never undoes what a later one wrote, and a shelf a book has left is gone.
@Suite(.serialized) struct LibraryHistoryEndToEndTests {
    typealias Cron = CronEndToEndTests.Cron

    static let header = try! String(contentsOfFile: CronEndToEndTests.example, encoding: .utf8)
        .split(separator: "\n")[0].description

    /// One Goodreads row of Dune (ISBN 9780441172719) with the reader's cells given.
    static func dune(
        rating: Int, review: String, shelf: String, shelves: String = "", positions: String = "",
        read: String = ""
    ) -> String {
        "2001,Dune,Frank Herbert,\"Herbert, Frank\",,\"=\"\"0441172717\"\"\",\"=\"\"9780441172719\"\"\",\(rating),4.25,Ace,"
            + "Paperback,604,1990,1965,\(read),2024/01/10,\"\(shelves)\",\"\(positions)\",\(shelf),\(review),,,1,0"
    }

    /// Another book, so a later export changes the library in more than Dune.
    static let other =
        "2002,Hyperion,Dan Simmons,\"Simmons, Dan\",,\"=\"\"0553283685\"\"\",\"=\"\"9780553283686\"\"\",4,4.25,"
        + "Bantam,Paperback,482,1990,1989,2024/05/01,2024/04/01,,,read,,,,1,0"

    func export(_ cron: Cron, _ name: String, _ rows: [String]) -> String {
        cron.dir.write(name, ([Self.header] + rows).joined(separator: "\n") + "\n")
    }

    /// The library's books by title, as JSON objects.
    func books(_ cron: Cron) throws -> [String: [String: Any]] {
        var books: [String: [String: Any]] = [:]
        try GzipReader(path: cron.workspace + "/library/library.ndjson.gz").forEachLine { bytes, _ in
            let book = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
            books[book["title"] as! String] = book
        }
        return books
    }

    func library(_ cron: Cron) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: cron.workspace + "/library/library.ndjson.gz"))
    }

    func run(_ cron: Cron, _ csv: String) throws -> ProcessResult {
        let result = try cron.shelfline(["run", "--csv", csv, "--log-format", "logfmt"])
        #expect(result.status == 0, "\(result)")
        return result
    }

    /// A workspace that imported January's export (Dune rated 2, "Slow start"), then June's (rated
    /// 5, a new review, and another book); returns it and January's file.
    func januaryThenJune() throws -> (Cron, String) {
        let cron = try Cron()
        let january = export(cron, "january.csv", [Self.dune(rating: 2, review: "Slow start", shelf: "read", read: "2024/01/20")])
        let june = export(
            cron, "june.csv",
            [
                Self.dune(rating: 5, review: "Better the second time", shelf: "read", read: "2024/06/20"),
                Self.other,
            ])
        _ = try run(cron, january)
        _ = try run(cron, june)
        return (cron, january)
    }

    @Test(.bug(id: 36)) func anOlderExportImportedAgainChangesNothing() throws {
        let (cron, january) = try januaryThenJune()
        let newer = try library(cron)
        #expect(try books(cron)["Dune"]?["rating"] as? Double == 5)

        // The January file again, then its content under another name: the same import.
        let renamed = cron.dir.file("renamed.csv")
        try FileManager.default.copyItem(atPath: january, toPath: renamed)
        for file in [january, renamed] {
            let again = try run(cron, file)
            #expect(again.stdout.hasPrefix("already imported; nothing to do"), "\(again)")
            #expect(!again.stderr.contains("event=start"), "no stage runs: \(again)")
            #expect(try library(cron) == newer, "the library is as June's import left it")
        }
        let dune = try #require(try books(cron)["Dune"])
        #expect(dune["rating"] as? Double == 5 && dune["review"] as? String == "Better the second time", "\(dune)")

        // Rebuilding from the stored imports gives the same answer.
        let rebuild = try cron.shelfline(["rebuild"])
        #expect(rebuild.status == 0 && rebuild.stdout.contains("library unchanged"), "\(rebuild)")
    }

    @Test(.bug(id: 36)) func anOlderImportMergedAgainKeepsTheCellsALaterImportWrote() throws {
        let (cron, january) = try januaryThenJune()
        // January's merge must run again (its manifest gone): it still comes before June.
        try FileManager.default.removeItem(atPath: cron.workspace + "/runs/\(try cron.runId(january))/.manifests/merge.json")
        let again = try run(cron, january)
        #expect(again.stderr.contains("stage=merge event=start"), "\(again)")
        let dune = try #require(try books(cron)["Dune"])
        #expect(dune["rating"] as? Double == 5 && dune["review"] as? String == "Better the second time", "\(dune)")
        // What only grows still grows: both readings are kept.
        #expect((dune["reads"] as? [[String: Any]])?.count == 2, "\(dune)")
    }

    @Test(.bug(id: 36)) func aShelfTheBookHasLeftIsGone() throws {
        let cron = try Cron()
        let earlier = export(
            cron, "earlier.csv",
            [
                Self.dune(
                    rating: 0, review: "", shelf: "to-read", shelves: "to-read, space", positions: "to-read (#12), space (#3)")
            ])
        let later = export(
            cron, "later.csv",
            [
                Self.dune(rating: 4, review: "", shelf: "read", shelves: "desert", positions: "desert (#1)", read: "2024/06/20"),
                Self.other,
            ])
        _ = try run(cron, earlier)
        _ = try run(cron, later)

        let list = try cron.shelfline(["library", "list", "--shelf", "to-read"])
        #expect(list.status == 0 && !list.stdout.contains("Dune"), "\(list)")
        #expect(try cron.shelfline(["library", "list", "--shelf", "space"]).stdout.contains("Dune") == false)
        #expect(try cron.shelfline(["library", "list", "--shelf", "desert"]).stdout.contains("Dune"))

        let stats = try cron.shelfline(["library", "stats", "--json"])
        let counts = try #require(try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any], "\(stats)")
        #expect(counts["exclusiveShelves"] as? [String: Int] == ["read": 2], "\(stats)")
        #expect(counts["shelves"] as? [String: Int] == ["desert": 1], "\(stats)")

        let exported = try cron.shelfline(["export", "--format", "goodreads"])
        let dune = try #require(exported.stdout.split(separator: "\n").first { $0.contains("Dune") }, "\(exported)")
        #expect(!dune.contains("to-read") && !dune.contains("space") && dune.contains("desert (#1)"), "\(dune)")
        let toRead = try cron.shelfline(["export", "--format", "goodreads", "--shelf", "to-read"])
        #expect(!toRead.stdout.contains("Dune"), "\(toRead)")

        // The rebuild agrees.
        let rebuild = try cron.shelfline(["rebuild"])
        #expect(rebuild.status == 0 && rebuild.stdout.contains("library unchanged"), "\(rebuild)")
    }
}
