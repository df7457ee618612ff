import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import TestTraits
import Testing

/// Every distinct book stays a distinct book (issue 21), through the built executables: near misses
/// sharing a main title and author stay apart, the same book spelled otherwise folds, dedupe and
/// merge answer alike, and a damaged or lost library comes back by the advice its error gives.
@Suite(.serialized, .offCooperativePool) struct BookIdentityEndToEndTests {
    static let config = ExecutableRunner.repositoryRoot + "/examples/pipeline.json"
    static let header =
        "Book Id,Title,Author,Author l-f,Additional Authors,ISBN,ISBN13,My Rating,Average Rating,Publisher,"
        + "Binding,Number of Pages,Year Published,Original Publication Year,Date Read,Date Added,Bookshelves,"
        + "Bookshelves with positions,Exclusive Shelf,My Review,Spoiler,Private Notes,Read Count,Owned Copies\n"

    /// A Goodreads row, without ISBN (as Kindle rows are) unless `isbn13` is given.
    static func row(
        _ id: Int, _ title: String, _ author: String, rating: Int = 0, shelf: String = "read",
        isbn13: String = ""
    ) -> String {
        func cell(_ text: String) -> String {
            text.contains(",") || text.contains("\"") ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
        }
        return
            "\(id),\(cell(title)),\(cell(author)),,,=\"\",=\"\(isbn13)\",\(rating),4.0,Press,Kindle Edition,,,,,2024/01/0\(id % 9 + 1),\(shelf),,\(shelf),,,,1,0\n"
    }

    /// (title, author, label): rows with one label are one book.
    static let rows: [(String, String, String)] = [
        ("The Grammar Book: A Guide (The Grammar Book, #1)", "Ann Writer", "grammar-1"),
        ("The Grammar Book: More Rules (The Grammar Book, #2)", "Ann Writer", "grammar-2"),
        ("The Grammar Book: Even More (The Grammar Book, #3)", "Ann Writer", "grammar-3"),
        ("Data Stories: A Guide for Professionals", "Bo Teller", "data"),
        ("Data Stories: Let's Practice!", "Bo Teller", "data-workbook"),
        ("Comic: Time", "Cy Drawer", "comic-time"),
        ("Comic: volume 0", "Cy Drawer", "comic-0"),
        ("Hacking People: The Art of Deception", "Di Social", "art"),
        ("Hacking People: The Science of Deception", "Di Social", "science"),
        ("The Shining", "Stephen King", "shining"),
        ("The Shining", "Tabitha King", "tabitha"),
        // The same books again, spelled otherwise: they fold.
        ("Data Stories: A Guide for Professionals (Kindle Edition)", "B. Teller", "data"),
        ("Hacking People: the art of deception", "Social, Di", "art"),
        ("the shining", "King, Stephen", "shining"),
    ]

    func export(_ rows: [(String, String, String)], from first: Int = 1) -> String {
        Self.header + rows.enumerated().map { Self.row(first + $0.offset, $0.element.0, $0.element.1) }.joined()
    }

    func run(_ arguments: [String], in dir: TemporaryDirectory) throws -> ProcessResult {
        try ExecutableRunner.run("shelfline", arguments, in: dir.path)
    }

    /// Source line → book id, from a gzip NDJSON file of records (`dedupe.bookId`) or a ledger (`bookId`).
    func bookIds(_ path: String, _ field: (Data) -> String?) throws -> [Int: String] {
        var ids: [Int: String] = [:]
        try GzipReader(path: path).forEachLine { bytes, _ in
            let data = Data(bytes)
            let object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
            ids[object["line"] as! Int] = field(data)
        }
        return ids
    }

    @Test(.bug(id: 21)) func nearMissesStayApartAndSpellingVariantsFoldAndDedupeAgreesWithMerge() throws {
        let dir = TemporaryDirectory("identity")
        let csv = dir.file("export.csv"), workspace = dir.file("ws")
        try export(Self.rows).write(toFile: csv, atomically: true, encoding: .utf8)
        let result = try run(["run", "--csv", csv, "--config", Self.config, "--workspace", workspace], in: dir)
        #expect(result.status == 0, "\(result)")
        let labels = Set(Self.rows.map(\.2))
        let report = try readJSONFile(MergeReport.self, from: workspace + "/runs/latest/merge-report.json")
        #expect(report.libraryBooks == labels.count, "\(result)")
        #expect(report.outcomes.added == labels.count && report.outcomes.duplicateInFile == Self.rows.count - labels.count)
        // Line n + 1 is row n (the header is line 1).
        func idField(_ key: String) -> (Data) -> String? {
            { data in
                let object = try! JSONSerialization.jsonObject(with: data) as! [String: Any]
                if key == "dedupe" { return (object["dedupe"] as? [String: Any])?["bookId"] as? String }
                return object[key] as? String
            }
        }
        let deduped = try bookIds(workspace + "/runs/latest/deduped.ndjson.gz", idField("dedupe"))
        let ledger = try bookIds(workspace + "/runs/latest/ledger.ndjson.gz", idField("bookId"))
        #expect(deduped == ledger, "dedupe and merge resolve every row to the same book")
        for (a, rowA) in Self.rows.enumerated() {
            for (b, rowB) in Self.rows.enumerated() where a < b {
                let same = ledger[a + 2] == ledger[b + 2]
                #expect(same == (rowA.2 == rowB.2), "\(rowA.0) / \(rowB.0): one book \(same), labels \(rowA.2) / \(rowB.2)")
            }
        }
    }

    @Test(.bug(id: 21)) func aLaterExportJoinsOnlyTheSameBooks() throws {
        let dir = TemporaryDirectory("identity-library")
        let first = dir.file("a.csv"), second = dir.file("b.csv"), workspace = dir.file("ws")
        try export(Array(Self.rows.prefix(11))).write(toFile: first, atomically: true, encoding: .utf8)
        try export([
            ("The Grammar Book (The Grammar Book, #2)", "Ann Writer", "grammar-2"),
            ("Comic: Space", "Cy Drawer", "comic-space"),
            ("Data Stories", "Bo Teller", "data-or-workbook"),
            ("The Shining", "S. King", "shining"),
        ]).write(toFile: second, atomically: true, encoding: .utf8)
        #expect(try run(["run", "--csv", first, "--config", Self.config, "--workspace", workspace], in: dir).status == 0)
        let result = try run(["run", "--csv", second, "--config", Self.config, "--workspace", workspace], in: dir)
        #expect(result.status == 0, "\(result)")
        let report = try readJSONFile(MergeReport.self, from: workspace + "/runs/latest/merge-report.json")
        // #2 and The Shining join; Comic: Space is new; `Data Stories` alone could be either of two
        // books, so it does not guess: a book of its own.
        #expect(report.outcomes.updated == 2 && report.outcomes.added == 2, "\(report.outcomes)")
        #expect(report.libraryBooks == 13)
        let dedupe = try readJSONFile(
            [String: Int].self, keys: ["ambiguousTitle"], from: workspace + "/runs/latest/dedupe-report.json")
        #expect(dedupe["ambiguousTitle"] == 1)
    }

    /// Two exports of one reader: in the first, `Comic` carries the ISBN of `Comic: volume 0` (its
    /// subtitle dropped) beside a plain `Comic`, another book, so the two rows are one book there;
    /// the second says what that ISBN is.
    func twoExportsRevealingAnISBNsTitle(in dir: TemporaryDirectory) throws -> (first: String, second: String) {
        let first = dir.file("a.csv"), second = dir.file("b.csv"), isbn = "9780375507250"
        try
            (Self.header + Self.row(1, "Comic", "Cy Drawer", rating: 5, isbn13: isbn)
            + Self.row(2, "Comic", "Cy Drawer", rating: 2))
            .write(toFile: first, atomically: true, encoding: .utf8)
        try (Self.header + Self.row(1, "Comic: volume 0", "Cy Drawer", rating: 5, isbn13: isbn))
            .write(toFile: second, atomically: true, encoding: .utf8)
        return (first, second)
    }

    /// Lines 2 and 3 of the first export (its two `Comic` rows) in the library as rebuilt: their books.
    func firstExportsBooks(workspace: String, in dir: TemporaryDirectory) throws -> (ProcessResult, [Int: String]) {
        let ledgers = dir.file("ledgers")
        let rebuild = try run(["rebuild", "--config", Self.config, "--workspace", workspace, "--ledgers", ledgers], in: dir)
        let runs = try FileManager.default.contentsOfDirectory(atPath: ledgers)
        let first = try #require(
            runs.first { runId in
                (try? bookIds(ledgers + "/" + runId + "/ledger.ndjson.gz") { _ in "" })?.count == 2
            })
        let ids = try bookIds(ledgers + "/" + first + "/ledger.ndjson.gz") { data in
            (try! JSONSerialization.jsonObject(with: data) as! [String: Any])["bookId"] as? String
        }
        return (rebuild, ids)
    }

    /// The second export shows the first filed `Comic: volume 0` under `Comic`: merge alone cannot
    /// part a library book (it keeps no row's title), so `shelfline run` rebuilds the library from
    /// the stored imports, and the plain `Comic` is a book of its own again.
    @Test(.bug(id: 21)) func anExportRevealingAnISBNsTitlePartsTheBooksAnEarlierExportFolded() throws {
        let dir = TemporaryDirectory("identity-reveal")
        let (first, second) = try twoExportsRevealingAnISBNsTitle(in: dir)
        let workspace = dir.file("ws")
        let arguments = { (csv: String) in ["run", "--csv", csv, "--config", Self.config, "--workspace", workspace] }
        #expect(try run(arguments(first), in: dir).status == 0)
        #expect(
            try readJSONFile(MergeReport.self, from: workspace + "/runs/latest/merge-report.json").libraryBooks == 1,
            "nothing in the first export tells its two rows apart")
        let result = try run(arguments(second), in: dir)
        #expect(result.status == 0 && result.stdout.contains("library rebuilt"), "\(result)")
        let report = try readJSONFile(MergeReport.self, from: workspace + "/runs/latest/merge-report.json")
        #expect(report.booksToRebuild == 1, "\(report)")
        var books: [[String]] = []
        try GzipReader(path: workspace + "/library/library.ndjson.gz").forEachLine { bytes, _ in
            books.append((try JSONSerialization.jsonObject(with: Data(bytes)) as! [String: Any])["keys"] as! [String])
        }
        // The ISBN's book knows its volume; the plain `Comic` is a book of its own, with no ISBN.
        #expect(books.count == 2 && books.filter { $0.contains("isbn:9780375507250") }.count == 1, "\(books)")
        let page = try String(contentsOfFile: workspace + "/library.html", encoding: .utf8)
        #expect(
            page.contains("<title>Library: 2 books</title>"), "the library page, written before the rebuild, is written again")
        let (rebuild, ids) = try firstExportsBooks(workspace: workspace, in: dir)
        #expect(rebuild.stdout.contains("library unchanged"), "run left the library as a rebuild makes it: \(rebuild)")
        #expect(ids[2] != nil && ids[3] != nil && ids[2] != ids[3], "\(ids)")
        // Importing the second export again finds nothing to part.
        let again = try run(arguments(second), in: dir)
        #expect(again.status == 0 && !again.stdout.contains("library rebuilt"), "\(again)")
    }

    /// A library holding the books of an import no longer stored under runs/ (`shelfline clean`) is
    /// not rebuilt after such an export: that import's books would be lost. The run says so, and
    /// succeeds, its rows in the library.
    @Test(.bug(id: 21)) func noRebuildLosesTheBooksOfAnImportNoLongerStored() throws {
        let dir = TemporaryDirectory("identity-reveal-cleaned")
        let (first, second) = try twoExportsRevealingAnISBNsTitle(in: dir)
        let earlier = dir.file("earlier.csv"), workspace = dir.file("ws")
        try export([("New Book", "Ed New", "new")], from: 50).write(toFile: earlier, atomically: true, encoding: .utf8)
        let arguments = { (csv: String) in ["run", "--csv", csv, "--config", Self.config, "--workspace", workspace] }
        #expect(try run(arguments(earlier), in: dir).status == 0)
        #expect(try run(["clean", "--config", Self.config, "--workspace", workspace], in: dir).status == 0)
        #expect(try run(arguments(first), in: dir).status == 0)
        let result = try run(arguments(second), in: dir)
        #expect(result.status == 0 && !result.stdout.contains("library rebuilt"), "\(result)")
        #expect(result.stderr.contains("was not rebuilt") && result.stderr.contains("no longer stored"), "\(result)")
        let report = try readJSONFile(MergeReport.self, from: workspace + "/runs/latest/merge-report.json")
        #expect(report.booksToRebuild == 1 && report.libraryBooks == 2, "the earlier import's book is kept: \(report)")
    }

    /// `shelfline rebuild` by hand refuses (65, the library untouched) when the library holds books
    /// of an import `shelfline clean` removed from runs/: the rebuild would drop them. With
    /// `--drop-unstored-imports` it rebuilds from what is stored, as asked.
    @Test func rebuildRefusesToDropTheBooksOfAnImportNoLongerStored() throws {
        let dir = TemporaryDirectory("rebuild-unstored")
        let earlier = dir.file("earlier.csv"), later = dir.file("later.csv"), workspace = dir.file("ws")
        let library = workspace + "/library/library.ndjson.gz"
        try export([("Old Book", "Ed Old", "old")], from: 50).write(toFile: earlier, atomically: true, encoding: .utf8)
        try export([("New Book", "Ed New", "new")], from: 60).write(toFile: later, atomically: true, encoding: .utf8)
        let arguments = { (csv: String) in ["run", "--csv", csv, "--config", Self.config, "--workspace", workspace] }
        #expect(try run(arguments(earlier), in: dir).status == 0)
        #expect(try run(["clean", "--config", Self.config, "--workspace", workspace], in: dir).status == 0)
        #expect(try run(arguments(later), in: dir).status == 0)
        let before = try #require(FileManager.default.contents(atPath: library))
        let rebuild = ["rebuild", "--config", Self.config, "--workspace", workspace]

        let refused = try run(rebuild, in: dir)
        #expect(refused.status == 65, "\(refused)")
        #expect(
            refused.stderr.contains("1 import(s) no longer stored") && refused.stderr.contains("--drop-unstored-imports"),
            "\(refused)")
        #expect(FileManager.default.contents(atPath: library) == before, "the library is untouched")

        let dropped = try run(rebuild + ["--drop-unstored-imports"], in: dir)
        #expect(dropped.status == 0 && dropped.stdout.contains("library rebuilt: 1 books"), "\(dropped)")
    }

    /// `shelfline rebuild` learns what every stored import says of an ISBN's title before replaying
    /// the first: a library lost and rebuilt keeps the two books apart, byte for byte as before.
    @Test(.bug(id: 21)) func rebuildLearnsAnISBNsTitleFromEveryStoredImport() throws {
        let dir = TemporaryDirectory("identity-rebuild-learns")
        let (first, second) = try twoExportsRevealingAnISBNsTitle(in: dir)
        let workspace = dir.file("ws"), library = workspace + "/library/library.ndjson.gz"
        for csv in [first, second] {
            #expect(try run(["run", "--csv", csv, "--config", Self.config, "--workspace", workspace], in: dir).status == 0)
        }
        let built = try #require(FileManager.default.contents(atPath: library))
        try FileManager.default.removeItem(atPath: library)
        let (rebuild, ids) = try firstExportsBooks(workspace: workspace, in: dir)
        #expect(rebuild.status == 0 && rebuild.stdout.contains("library rebuilt: 2 books"), "\(rebuild)")
        #expect(
            ids[2] != nil && ids[3] != nil && ids[2] != ids[3], "the first export's rows, replayed first, are two books: \(ids)")
        #expect(FileManager.default.contents(atPath: library) == built)
    }

    /// The recovery advice of a damaged library, followed word for word, gives every book back;
    /// a restored or deleted library makes merge run again instead of "already imported".
    @Test(.bug(id: 21)) func aDamagedLibraryComesBackByItsAdvice() throws {
        let dir = TemporaryDirectory("identity-recovery")
        let first = dir.file("a.csv"), second = dir.file("b.csv"), workspace = dir.file("ws")
        try export(Array(Self.rows.prefix(6))).write(toFile: first, atomically: true, encoding: .utf8)
        try export(Array(Self.rows.dropFirst(6)), from: 100).write(toFile: second, atomically: true, encoding: .utf8)
        let arguments = { (csv: String) in ["run", "--csv", csv, "--config", Self.config, "--workspace", workspace] }
        #expect(try run(arguments(first), in: dir).status == 0)
        #expect(try run(arguments(second), in: dir).status == 0)
        let library = workspace + "/library/library.ndjson.gz", previous = workspace + "/library/library.previous.ndjson.gz"
        let whole = try #require(FileManager.default.contents(atPath: library))
        let books = try readJSONFile(MergeReport.self, from: workspace + "/runs/latest/merge-report.json").libraryBooks
        #expect(books == Set(Self.rows.map(\.2)).count)

        // 1. `shelfline rebuild` of an intact library built by this version: byte-identical, not written.
        let same = try run(["rebuild", "--config", Self.config, "--workspace", workspace], in: dir)
        #expect(same.status == 0 && same.stdout.contains("library unchanged"), "\(same)")
        #expect(FileManager.default.contents(atPath: library) == whole)

        // 2. Damaged: the error names the way back; `shelfline rebuild` takes it.
        try Data("not gzip".utf8).write(to: URL(fileURLWithPath: library))
        let third = dir.file("c.csv")
        try export([("New Book", "Ed New", "new")], from: 200).write(toFile: third, atomically: true, encoding: .utf8)
        let refused = try run(arguments(third), in: dir)
        #expect(refused.status == 65 && refused.stderr.contains("shelfline rebuild"), "\(refused)")
        let rebuilt = try run(["rebuild", "--config", Self.config, "--workspace", workspace], in: dir)
        #expect(rebuilt.status == 0 && rebuilt.stdout.contains("library rebuilt"), "\(rebuilt)")
        #expect(FileManager.default.contents(atPath: library) == whole)

        // 3. The other advice: the previous generation restored, then the import made since re-run.
        try FileManager.default.removeItem(atPath: library)
        try FileManager.default.copyItem(atPath: previous, toPath: library)
        let rerun = try run(arguments(second), in: dir)
        #expect(rerun.status == 0 && !rerun.stdout.contains("already imported"), "\(rerun)")
        #expect(FileManager.default.contents(atPath: library) == whole)

        // 4. Deleted: status says work is pending, and the re-run puts the second import's books back.
        try FileManager.default.removeItem(atPath: library)
        let status = try run(["status", "--csv", second, "--config", Self.config, "--workspace", workspace], in: dir)
        #expect(status.status == 1, "\(status)")
        #expect(try run(arguments(second), in: dir).status == 0)
        #expect(
            try readJSONFile(MergeReport.self, from: workspace + "/runs/latest/merge-report.json").libraryBooks
                == Set(Self.rows.dropFirst(6).map(\.2)).count)
    }
}

private func readJSONFile(_ type: [String: Int].Type, keys: [String], from path: String) throws -> [String: Int] {
    let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
    return object.filter { keys.contains($0.key) }.compactMapValues { $0 as? Int }
}
