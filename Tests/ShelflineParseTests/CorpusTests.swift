import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineParse

/// The real exports in `../shared/corpus` (never copied into the repository).
enum Corpus {
    /// `$SHELFLINE_CORPUS`, else `../shared/corpus` beside the repository (a git worktree one level
    /// deeper also looks two levels up).
    static let directory: String? = {
        let fileManager = FileManager.default
        var candidates = [
            ExecutableRunner.repositoryRoot + "/../shared/corpus", ExecutableRunner.repositoryRoot + "/../../shared/corpus",
        ]
        if let explicit = ProcessInfo.processInfo.environment["SHELFLINE_CORPUS"] { candidates.insert(explicit, at: 0) }
        let found = candidates.first { fileManager.fileExists(atPath: $0 + "/README.md") }
        if found == nil {
            print("SKIP corpus tests: no ../shared/corpus beside \(ExecutableRunner.repositoryRoot) (set SHELFLINE_CORPUS)")
        }
        return found.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
    }()

    static var available: Bool { directory != nil }

    static func path(_ name: String) -> String { directory! + "/" + name }
}

struct CorpusFile: CustomTestStringConvertible, Sendable {
    var name: String
    var format: SourceFormat
    var rows: Int
    var generic: Bool = false
    var testDescription: String { name }
}

@Suite(.enabled(if: Corpus.available, "needs ../shared/corpus"))
struct CorpusTests {
    static let files: [CorpusFile] = [
        .init(name: "gr_31col_html-reviews_genekaufman.csv", format: .goodreads, rows: 978),
        .init(name: "gr_24col_2025_bsanser.csv", format: .goodreads, rows: 358),
        .init(name: "sg_crlf_quarter-stars_bsanser.csv", format: .storygraph, rows: 193),
        .init(name: "lt_tsv_mixed-encoding_turtleengr.tsv", format: .librarything, rows: 422),
        .init(name: "small/goodreads.csv", format: .goodreads, rows: 3),
        .init(name: "small/storygraph.csv", format: .storygraph, rows: 2),
        .init(name: "small/librarything.tsv", format: .librarything, rows: 3),
        .init(name: "small/generic.csv", format: .generic, rows: 4, generic: true),
        .init(name: "small/calibre.csv", format: .calibre, rows: 1),
        .init(name: "small/bookwyrm.csv", format: .bookwyrm, rows: 3),
        .init(name: "small/openreads-csv-example.csv", format: .openreads, rows: 4),
        .init(name: "small/openlibrary.csv", format: .openlibrary, rows: 4),
    ]

    static let genericParameters = try! JSONDecoder().decode(
        ParseParameters.self,
        from: Data(
            #"""
            {"generic":{"columns":{"title":"title","author":"author","isbn":"ISBN13","rating":"rating","shelf":"shelf",
            "review":"review","dateAdded":"added","dateRead":"finished","id":"id"}}}
            """#.utf8))

    static func run(_ name: String, parameters: ParseParameters = ParseParameters()) -> (StageRun, Int) {
        let bytes = Array(FileManager.default.contents(atPath: Corpus.path(name)) ?? Data())
        let run = StageRun(bytes, name: (name as NSString).lastPathComponent, parameters: parameters)
        let lines = (try? lineCount(run.directory.file("out.ndjson.gz"))) ?? -1
        return (run, lines)
    }

    static func lineCount(_ path: String) throws -> Int {
        var count = 0
        try GzipReader(path: path).forEachLine { _, _ in count += 1 }
        return count
    }

    @Test(.bug(id: 2), arguments: files)
    func corpusParsesWithZeroLostRows(_ file: CorpusFile) throws {
        let (run, lines) = Self.run(file.name, parameters: file.generic ? Self.genericParameters : ParseParameters())
        #expect(run.error == nil, "\(String(describing: run.error))")
        let report = try #require(run.report)
        #expect(report.format == file.format)
        #expect(report.rowsRead == file.rows)
        #expect(report.rowsWritten + report.rowsRejected == report.rowsRead)
        #expect(lines == report.rowsWritten)
        #expect(run.records.count == report.rowsWritten)
        #expect(run.rejects.count == report.rowsRejected)
        // Every record points at its raw row: the bytes there start a row of the same source line.
        let bytes = Array(FileManager.default.contents(atPath: Corpus.path(file.name))!)
        for record in run.records {
            #expect(record.byteOffset + record.byteLength <= bytes.count)
            let before = record.byteOffset == 0 ? UInt8(ascii: "\n") : bytes[record.byteOffset - 1]
            #expect(before == UInt8(ascii: "\n"), "line \(record.line)")
            #expect(record.isbn13.map(ISBN.isValid13) ?? true)
        }
    }

    @Test(.bug(id: 2)) func goodreadsCorpusRowsReadAsExpected() throws {
        let (run, _) = Self.run("gr_31col_html-reviews_genekaufman.csv")
        let records = run.records
        // ISBN-10 ending in X converts to ISBN-13.
        let withX = try #require(records.first { $0.isbn10?.hasSuffix("X") == true })
        #expect(withX.isbn13 == ISBN.thirteen(from: withX.isbn10!))
        // Series in titles; HTML reviews kept as text; custom exclusive shelves kept.
        let bob = try #require(records.first { $0.title.hasPrefix("We Are Legion") })
        #expect(bob.titleBase == "We Are Legion (We Are Bob)" && bob.series == "Bobiverse" && bob.seriesPosition == "1")
        #expect(records.contains { $0.review?.contains("<br/>") == true })
        #expect(records.filter { $0.shelf == "did-not-finish" }.count == 20)
        #expect(records.filter { $0.shelf == "literature" }.count == 16)
        // Runs of spaces collapsed in every author name.
        #expect(records.allSatisfy { ($0.additionalAuthors ?? []).allSatisfy { !$0.contains("  ") } })
        #expect(records.contains { $0.additionalAuthors?.contains("Dennis Taylor") == true })
        // 0 = unrated.
        #expect(records.filter { $0.rating == nil }.count == 644)
    }

    @Test(.bug(id: 2)) func storygraphCorpusRowsReadAsExpected() throws {
        let (run, _) = Self.run("sg_crlf_quarter-stars_bsanser.csv")
        let records = run.records
        #expect(records.contains { $0.rating == 3.75 } && records.contains { $0.rating == 4.25 })
        // A 9-digit value whose leading zero a spreadsheet dropped is restored…
        let charing = try #require(records.first { $0.title == "84, Charing Cross Road" })
        #expect(charing.isbn10 == "0140143505" && charing.isbn13 == "9780140143508")
        // …an 8-digit one whose zero-padded checksum fails stays raw, not an identifier.
        let handmaid = try #require(records.first { $0.isbnRaw == "38549081" })
        #expect(handmaid.isbn13 == nil)
        // The ASIN is kept in its own field.
        let kaigen = try #require(records.first { $0.asin == "B07MNWKF2M" })
        #expect(kaigen.isbn13 == nil && kaigen.isbnRaw == nil)
        // Ranges become spans.
        let neverwhere = try #require(records.first { $0.title == "Neverwhere" })
        #expect(neverwhere.reads == [ReadSpan(start: "2023-05-23", end: "2023-06-07")])
        #expect(records.filter { $0.shelf == "did-not-finish" }.count == 1)
    }

    @Test(.bug(id: 2)) func libraryThingCorpusRowsReadAsExpected() throws {
        let (run, _) = Self.run("lt_tsv_mixed-encoding_turtleengr.tsv")
        #expect(run.report?.fieldsRepaired == 5)
        let flanagan = try #require(run.records.first { $0.rowId == "203703707" })
        #expect(flanagan.isbn13 == "9780596101992" && flanagan.isbn10 == "0596101996")
        #expect(flanagan.author == "David Flanagan" && flanagan.publisher == "O'Reilly Media" && flanagan.pages == 1032)
        #expect(run.records.filter { $0.binding == "DVD" }.count == 83)
        #expect(run.records.allSatisfy { $0.shelf == nil })  // no Date Read anywhere in this file

        // The Latin-1 byte 0xE2 in a Subjects cell is repaired to its Latin-1 character, not dropped.
        let reader = DelimitedReader(
            source: .bytes(
                Array(
                    FileManager.default.contents(
                        atPath: Corpus.path("lt_tsv_mixed-encoding_turtleengr.tsv"))!)), delimiter: 0x09)
        var row = DelimitedRow()
        var subjects: [String] = []
        while try reader.next(into: &row) {
            let (text, repaired) = TextRepair.decode(Array(row.bytes(35)))
            if repaired { subjects.append(text) }
        }
        #expect(subjects.count == 5)
        #expect(subjects.contains { $0.contains("Pauvret\u{E2}e > \u{E2}Etats-Unis") })
        #expect(subjects.allSatisfy { !$0.contains("\u{FFFD}") })
    }

    @Test(.bug(id: 2)) func smallLibraryThingKeepsUTF8AndBrackets() throws {
        let (run, _) = Self.run("small/librarything.tsv")
        let marelle = try #require(run.records.first { $0.title == "Marelle" })
        #expect(marelle.author == "Julio Cortazar" && marelle.rating == 4.5 && marelle.isbn13 == "9782070291342")
        #expect(marelle.reads == [ReadSpan(start: "2007-04-16", end: "2007-05-08")] && marelle.shelf == "read")
        #expect(marelle.dateAdded == "2006-08-09")
    }
}

/// The corpus suite above is skipped without `../shared/corpus`; under CI that is a failure, not a skip.
@Suite struct CorpusPresenceTests {
    @Test func corpusIsPresentUnderCI() {
        #expect(
            Corpus.available || !ContinuousIntegration.isRunning,
            "CI=true but ../shared/corpus is missing (set SHELFLINE_CORPUS): the corpus tests did not run")
    }
}
