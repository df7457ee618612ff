import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import Testing

@testable import ShelflineLibrary

/// The merge stage on real files: idempotence, cross-source merging, reports, failed rows, review.
@Suite struct MergeStageTests {
    let temp = TemporaryDirectory("library-tests")
    var workspace: Workspace { Workspace(root: temp.file("ws")) }

    func merge(_ fixture: ImportFixture, importId: String? = "import-1") throws -> MergeReport {
        try MergeStage.run(fixture.request(importId: importId), workspace: workspace)
    }

    @Test(.bug(id: 3)) func sameFileTwiceIsByteIdentical() throws {
        let rows = [
            row(
                rec(
                    "Dune", by: "Frank Herbert", isbn13: "9780441172719", shelf: "read", rating: 5,
                    reads: [ReadSpan(end: "2020-01-01")]), id: 1),
            row(rec("Dune", by: "Frank Herbert", isbn13: "9780441172719", shelf: "to-read", rating: 3), id: 2),
            row(rec("Emma", by: "Jane Austen", shelf: "to-read", shelves: ["classics"]), id: 3),
            ImportFixture.Row(raw: "4,\"broken", record: nil, reason: "unterminated quote"),
        ]
        let fixture = try ImportFixture(directory: temp.file("run1"), rows: rows)
        let first = try merge(fixture, importId: "run-1")
        let bytes = fileBytes(workspace.libraryFile)
        #expect(bytes != nil)
        #expect(first.outcomes.added == 2)
        #expect(first.outcomes.duplicateInFile == 1)
        #expect(first.outcomes.rejected == 1)
        #expect(first.outcomes.total == first.rowsRead)

        let second = try merge(fixture, importId: "run-2")
        #expect(fileBytes(workspace.libraryFile) == bytes)
        #expect(second.outcomes.updated == 2)
        #expect(second.outcomes.added == 0)
        #expect(second.outcomes.total == second.rowsRead)
        // No write happened, so the kept previous generation is not the same as the current one.
        #expect(!FileManager.default.fileExists(atPath: workspace.libraryBackup))
    }

    @Test(.bug(id: 3)) func goodreadsAndStoryGraphMergeIntoOneBookEach() throws {
        // Goodreads: ISBN-13s, `First Last`, series in the title, whole-star ratings.
        let goodreads = [
            row(
                rec(
                    "The Left Hand of Darkness (Hainish Cycle, #4)", by: "Ursula K. Le Guin", isbn13: "9780441478125",
                    shelf: "read", rating: 5, reads: [ReadSpan(end: "2021-03-04")], shelves: ["sci-fi"]), id: 1),
            row(rec("Piranesi", by: "Susanna Clarke", isbn13: "9781635575637", shelf: "currently-reading"), id: 2),
            row(rec("Cien años de soledad", by: "Gabriel García Márquez", shelf: "to-read"), id: 3),
        ]
        // StoryGraph: no ISBN for some rows, `Last, First` authors, ranges of read dates, quarter stars.
        let storygraph = [
            row(
                rec(
                    "The Left Hand of Darkness", by: "Le Guin, Ursula K.", shelf: "read", rating: 4.25,
                    reads: [ReadSpan(start: "2021-02-20", end: "2021-03-04")], shelves: ["favorites"], format: .storygraph), id: 1
            ),
            row(
                rec(
                    "Piranesi", by: "Susanna Clarke", isbn13: "9781635575637", shelf: "read",
                    reads: [ReadSpan(start: "2022-01-01", end: "2022-01-09")], format: .storygraph), id: 2),
            row(rec("CIEN AÑOS DE SOLEDAD", by: "Garcia Marquez, Gabriel", shelf: "to-read", format: .storygraph), id: 3),
            row(rec("Project Hail Mary", by: "Andy Weir", isbn13: "9780593135204", shelf: "read", format: .storygraph), id: 4),
        ]
        let gr = try ImportFixture(directory: temp.file("gr"), rows: goodreads)
        let sg = try ImportFixture(directory: temp.file("sg"), format: .storygraph, rows: storygraph)
        _ = try merge(gr, importId: "gr")
        let report = try merge(sg, importId: "sg")
        #expect(report.outcomes.updated == 3)
        #expect(report.outcomes.added == 1)
        let books = try libraryBooks(workspace)
        #expect(books.count == 4)
        let leGuin = try #require(books.first { $0.isbn13 == "9780441478125" })
        #expect(leGuin.rating == 4.25)
        #expect(leGuin.reads == [ReadSpan(start: "2021-02-20", end: "2021-03-04")])
        // The shelves are the newest export's list (issue 36).
        #expect(leGuin.shelves == ["favorites"])
        #expect(leGuin.provenance.map(\.format) == [.goodreads, .storygraph])
        let piranesi = try #require(books.first { $0.isbn13 == "9781635575637" })
        #expect(piranesi.shelf == "read")
        // Order does not matter for the result's ids: the same file into an empty library gives the same ids.
        #expect(books.map(\.id) == books.map(\.id).sorted())
    }

    @Test(.bug(id: 3)) func differentIsbnsAreDifferentEditions() throws {
        let rows = [
            row(rec("Dune", by: "Frank Herbert", isbn13: "9780441172719", shelf: "read"), id: 1),
            row(rec("Dune", by: "Frank Herbert", isbn13: "9780593099322", shelf: "to-read"), id: 2),
            row(rec("Dune", by: "Frank Herbert", shelf: "currently-reading"), id: 3),
        ]
        let report = try merge(try ImportFixture(directory: temp.file("eds"), rows: rows))
        #expect(report.outcomes.added == 2)
        #expect(report.outcomes.duplicateInFile == 1)
        let books = try libraryBooks(workspace)
        #expect(books.count == 2)
        // One export listing two ISBNs keeps two editions; the ISBN-less row joins the first book
        // that claimed the title+author key.
        let first = try #require(books.first { $0.isbn13 == "9780441172719" })
        #expect(first.shelf == "read")
        #expect(first.keys.contains { $0.hasPrefix("tk:") })
        // …and re-importing changes nothing.
        let bytes = fileBytes(workspace.libraryFile)
        _ = try merge(try ImportFixture(directory: temp.file("eds2"), rows: rows), importId: "again")
        #expect(fileBytes(workspace.libraryFile) == bytes)
    }

    @Test(.bug(id: 3)) func anotherExportsEditionJoinsTheBook() throws {
        // Goodreads and StoryGraph often record different editions of the same book.
        _ = try merge(
            try ImportFixture(
                directory: temp.file("gr"),
                rows: [
                    row(
                        rec(
                            "Flow: The Psychology of Optimal Experience", by: "Mihály Csíkszentmihályi", isbn13: "9780061876721",
                            shelf: "read", rating: 4), id: 1)
                ]), importId: "gr")
        let sgRows = [
            row(
                rec(
                    "Flow", by: "Csikszentmihalyi, Mihaly", isbn13: "9780061339202", shelf: "read",
                    reads: [ReadSpan(start: "2020-01-01", end: "2020-02-01")], format: .storygraph), id: 1)
        ]
        let report = try merge(try ImportFixture(directory: temp.file("sg"), format: .storygraph, rows: sgRows), importId: "sg")
        #expect(report.outcomes.updated == 1)
        let books = try libraryBooks(workspace)
        #expect(books.count == 1)
        #expect(books[0].isbn13 == "9780061876721")
        #expect(books[0].keys.contains("isbn:9780061339202"))
        #expect(books[0].keys.contains("isbn:9780061876721"))
        #expect(books[0].reads == [ReadSpan(start: "2020-01-01", end: "2020-02-01")])
        // Re-importing the StoryGraph file now finds the book by its second ISBN; nothing changes.
        let bytes = fileBytes(workspace.libraryFile)
        _ = try merge(try ImportFixture(directory: temp.file("sg2"), format: .storygraph, rows: sgRows), importId: "sg2")
        #expect(fileBytes(workspace.libraryFile) == bytes)
    }

    @Test(.bug(id: 3)) func isbnLessBookGainsTheIsbnOfALaterRow() throws {
        _ = try merge(
            try ImportFixture(directory: temp.file("a"), rows: [row(rec("Emma", by: "Jane Austen", shelf: "to-read"), id: 1)]))
        let report = try merge(
            try ImportFixture(
                directory: temp.file("b"),
                rows: [row(rec("Emma", by: "Austen, Jane", isbn13: "9780141439587", shelf: "read"), id: 9)]),
            importId: "b")
        #expect(report.outcomes.updated == 1)
        let books = try libraryBooks(workspace)
        #expect(books.count == 1)
        #expect(books[0].isbn13 == "9780141439587")
        #expect(books[0].keys.contains("isbn:9780141439587"))
        #expect(FileManager.default.fileExists(atPath: workspace.libraryBackup))
    }

    /// A later export naming the subtitle of a library book it finds by ISBN needs no rebuild when
    /// the book's own title still joins it (`Cloud Atlas` → `Cloud Atlas: A Novel`), and needs one
    /// when it does not (`Cloud Atlas` → `Cloud Atlas: Book Three`): rows of the first export that
    /// joined `Cloud Atlas` by title alone may be another book (`MergeReport.booksToRebuild`).
    @Test(.bug(id: 21)) func aLibraryBookNeedsARebuildOnlyWhenItsOwnTitleNoLongerJoinsIt() throws {
        let isbn = "9780375507250"
        _ = try merge(
            try ImportFixture(
                directory: temp.file("a"),
                rows: [
                    row(rec("Cloud Atlas", by: "David Mitchell", isbn13: isbn), id: 1),
                    row(rec("Cloud Atlas", by: "David Mitchell"), id: 2),
                ]))
        let novel = try merge(
            try ImportFixture(
                directory: temp.file("b"),
                rows: [
                    row(rec("Cloud Atlas: A Novel", by: "David Mitchell", isbn13: isbn), id: 1)
                ]), importId: "b")
        #expect(novel.outcomes.updated == 1 && novel.booksToRebuild == nil, "\(novel)")
        let third = try merge(
            try ImportFixture(
                directory: temp.file("c"),
                rows: [
                    row(rec("Cloud Atlas: Book Three", by: "David Mitchell", isbn13: isbn), id: 1)
                ]), importId: "c")
        #expect(third.outcomes.updated == 1 && third.booksToRebuild == 1, "\(third)")
    }

    @Test(.bug(id: 3)) func reportAndLedgerAccountForEveryRow() throws {
        let rows = [
            row(
                rec(
                    "A", by: "X Y", isbn13: "9780441172719", match: MatchResult(status: .matchedByIsbn, editionKey: "/books/OL1M")
                ), id: 1),
            ImportFixture.Row(raw: "2,,,", record: nil, reason: "missing title"),
            row(rec("B", by: "X Y", match: MatchResult(status: .matchedBySearch, editionKey: "/books/OL2M")), id: 3),
            row(rec("C", by: "X Y", match: MatchResult(status: .notEnriched, reason: "no candidate")), id: 4),
            row(rec("A", by: "X Y", isbn13: "9780441172719"), id: 5),
            row(
                rec(
                    "D", by: "X Y",
                    match: MatchResult(
                        status: .needsReview,
                        candidates: [
                            MatchCandidate(key: "/books/OL4M", title: "D", authors: ["X Y"], score: 0.6)
                        ])), id: 6),
        ]
        let fixture = try ImportFixture(directory: temp.file("sums"), rows: rows)
        let report = try merge(fixture)
        #expect(report.rowsRead == 6)
        #expect(report.outcomes.total == 6)
        #expect(report.outcomes.rejected == 1)
        #expect(report.outcomes.added == 4)
        #expect(report.outcomes.duplicateInFile == 1)
        #expect(report.enrichment.total == 5)
        #expect(report.enrichment.matchedByIsbn == 1)
        #expect(report.enrichment.matchedBySearch == 1)
        #expect(report.enrichment.needsReview == 1)
        #expect(report.enrichment.notEnriched == 2)  // row 4, and row 5 (not looked up)
        #expect(report.libraryBooks == 4)
        let ledger = try NDJSONReader<LedgerEntry>(path: fixture.directory + "/ledger.ndjson.gz").readAll()
        #expect(ledger.map(\.line) == [2, 3, 4, 5, 6, 7])
        #expect(ledger[1].outcome == .rejected)
        #expect(ledger[1].reason == "missing title")
        #expect(ledger[4].outcome == .duplicateInFile)
        #expect(ledger[4].firstLine == 2)
        #expect(ledger[4].bookId == ledger[0].bookId)
        let review = try readJSONFile(ReviewList.self, from: fixture.directory + "/review.json")
        #expect(review.items.map(\.line) == [7])
    }

    @Test(.bug(id: 3)) func failedRowsCopyTheSourceVerbatim() throws {
        let rejectedRaw = "2,\"Unterminated, \"\"quoted"
        let notEnrichedRaw = "3,\"Café, \"\"Noir\"\"\",Ana Lima,,to-read,0"
        var noMatch = rec("Café, \"Noir\"", by: "Ana Lima", match: MatchResult(status: .notEnriched, reason: "no candidate"))
        noMatch.shelf = "to-read"
        let rows = [
            row(
                rec(
                    "Dune", by: "Frank Herbert", isbn13: "9780441172719",
                    match: MatchResult(status: .matchedByIsbn, editionKey: "/books/OL1M")), id: 1),
            ImportFixture.Row(raw: rejectedRaw, record: nil, reason: "unterminated quote"),
            ImportFixture.Row(raw: notEnrichedRaw, record: noMatch),
        ]
        let fixture = try ImportFixture(directory: temp.file("failed"), rows: rows, lineEnding: "\r\n")
        _ = try merge(fixture)
        // Issue 14 §6: rejected rows and rows imported without metadata are separate files.
        let csv = try String(contentsOfFile: fixture.directory + "/failed-rows.csv", encoding: .utf8)
        #expect(csv == ImportFixture.header + "\r\n" + rejectedRaw + "\r\n")
        let notEnriched = try String(contentsOfFile: fixture.directory + "/not-enriched.csv", encoding: .utf8)
        #expect(notEnriched == ImportFixture.header + "\r\n" + notEnrichedRaw + "\r\n")
    }

    @Test(.bug(id: 25)) func aLastRowWithoutALineEndGetsOneInNotEnrichedRows() throws {
        let unmatched = MatchResult(status: .notEnriched, reason: "no candidate")
        let rows = [
            row(rec("Emma", by: "Jane Austen", match: unmatched), id: 1),
            row(rec("Dune", by: "Frank Herbert", match: unmatched), id: 2),
        ]
        let fixture = try ImportFixture(directory: temp.file("no-final-line-end"), rows: rows, lineEnding: "\r\n")
        let source = URL(fileURLWithPath: fixture.source)
        try Data(try Data(contentsOf: source).dropLast(2)).write(to: source)
        _ = try merge(fixture)
        // The rows keep their own line ends; the last one, which has none, gets "\n".
        let notEnriched = try String(contentsOfFile: fixture.directory + "/not-enriched.csv", encoding: .utf8)
        #expect(notEnriched == ImportFixture.header + "\r\n" + rows[0].raw + "\r\n" + rows[1].raw + "\n")
    }

    /// not-enriched.csv reads the source a window at a time into one reused buffer: a row longer
    /// than a window, then rows past the end of a shorter window, still come out whole and exact.
    @Test(.bug(id: 41)) func notEnrichedRowsReadThroughOneReusedWindowAreExact() throws {
        let unmatched = MatchResult(status: .notEnriched, reason: "no candidate")
        let long = "1,\"" + String(repeating: "a long review ", count: 110_000) + "\",Ana Lima"
        var rows = [ImportFixture.Row(raw: long, record: rec("Long", by: "Ana Lima", match: unmatched))]
        for n in 0..<24 {
            let raw = "\(n + 2),\"" + String(repeating: "review \(n) ", count: 10_000) + "\",Ana Lima"
            rows.append(ImportFixture.Row(raw: raw, record: rec("Book \(n)", by: "Ana Lima", match: unmatched)))
        }
        let fixture = try ImportFixture(directory: temp.file("windows"), rows: rows)
        _ = try merge(fixture)
        let notEnriched = try String(contentsOfFile: fixture.directory + "/not-enriched.csv", encoding: .utf8)
        #expect(notEnriched == ImportFixture.header + "\n" + rows.map { $0.raw + "\n" }.joined())
    }

    @Test(.bug(id: 12)) func notEnrichedRowsOfABookAnotherRowEnrichedStayOut() throws {
        // Two rows of Dune (one matched, one not) make one enriched book: its unmatched row is not
        // "imported without metadata". Emma's rows are all unmatched: both are listed.
        let unmatched = MatchResult(status: .notEnriched, reason: "no candidate")
        let rows = [
            row(rec("Dune", by: "Frank Herbert", isbn13: "9780441172719", match: unmatched), id: 1),
            row(rec("Emma", by: "Jane Austen", match: unmatched), id: 2),
            row(
                rec(
                    "Dune", by: "Frank Herbert", isbn13: "9780441172719",
                    match: MatchResult(status: .matchedByIsbn, editionKey: "/books/OL1M")), id: 3),
            row(rec("Emma", by: "Jane Austen"), id: 4),
        ]
        let fixture = try ImportFixture(directory: temp.file("enriched-anyway"), rows: rows)
        let report = try merge(fixture)
        let notEnriched = try String(contentsOfFile: fixture.directory + "/not-enriched.csv", encoding: .utf8)
        #expect(notEnriched == ImportFixture.header + "\n" + rows[1].raw + "\n" + rows[3].raw + "\n")
        // Issue 25: the report counts the file's rows, so render need not read them all.
        #expect(report.notEnrichedRowCount == notEnriched.split(separator: "\n").count - 1)
    }

    @Test(.bug(id: 3)) func failedRowsFallBackWhenTheSourceIsGone() throws {
        let rows = [
            ImportFixture.Row(raw: "1,\"broken", record: nil, reason: "unterminated quote"),
            row(rec("Dune", by: "Frank Herbert"), id: 2),
        ]
        let fixture = try ImportFixture(directory: temp.file("gone"), rows: rows)
        try FileManager.default.removeItem(atPath: fixture.source)
        _ = try merge(fixture)
        let csv = try String(contentsOfFile: fixture.directory + "/failed-rows.csv", encoding: .utf8)
        #expect(csv.hasPrefix("Source Line,Reason,Row\n"))
        #expect(csv.contains("2,unterminated quote,\"1,\"\"broken\""))
        // Issue 14 §6: the not-enriched row is in the library, so it is in its own file.
        #expect(!csv.contains("Dune"))
        let notEnriched = try String(contentsOfFile: fixture.directory + "/not-enriched.csv", encoding: .utf8)
        #expect(notEnriched.contains("3,not looked up,Dune | Frank Herbert | "))
    }

    @Test(.bug(id: 3)) func corruptRecordsLeaveTheLibraryUntouched() throws {
        let fixture = try ImportFixture(directory: temp.file("ok"), rows: [row(rec("Dune", by: "Frank Herbert"), id: 1)])
        _ = try merge(fixture)
        let bytes = fileBytes(workspace.libraryFile)
        let bad = try ImportFixture(directory: temp.file("bad"), rows: [row(rec("Emma", by: "Jane Austen"), id: 1)])
        let full = try #require(fileBytes(bad.records))
        try full.prefix(full.count - 6).write(to: URL(fileURLWithPath: bad.records))
        #expect(throws: FileError.self) { _ = try merge(bad, importId: "bad") }
        #expect(fileBytes(workspace.libraryFile) == bytes)
        #expect(!FileManager.default.fileExists(atPath: bad.directory + "/merge-report.json"))
    }

    @Test(.bug(id: 3)) func corruptLibraryIsRefused() throws {
        let fixture = try ImportFixture(directory: temp.file("ok"), rows: [row(rec("Dune", by: "Frank Herbert"), id: 1)])
        _ = try merge(fixture)
        _ = try merge(
            try ImportFixture(directory: temp.file("ok2"), rows: [row(rec("Emma", by: "Jane Austen"), id: 1)]), importId: "2")
        let full = try #require(fileBytes(workspace.libraryFile))
        let truncated = full.prefix(full.count / 2)
        try truncated.write(to: URL(fileURLWithPath: workspace.libraryFile))
        do {
            _ = try merge(fixture, importId: "3")
            Issue.record("merge accepted a corrupt library")
        } catch let error as LibraryError {
            #expect(error.exitStatus == .dataError)
            #expect("\(error)".contains("library.previous.ndjson.gz"))
        }
        #expect(fileBytes(workspace.libraryFile) == truncated)
    }

    @Test(.bug(id: 3)) func rowCountsMustAddUp() throws {
        let fixture = try ImportFixture(directory: temp.file("count"), rows: [row(rec("Dune", by: "Frank Herbert"), id: 1)])
        var parse = try readJSONFile(ParseReport.self, from: fixture.parseReport)
        parse.rowsRead = 5
        try writeJSONFile(parse, to: fixture.parseReport)
        #expect(throws: LibraryError.self) { _ = try merge(fixture) }
        #expect(!FileManager.default.fileExists(atPath: workspace.libraryFile))
    }

    @Test(.bug(id: 3)) func reviewDecisionsAppliedByNextMerge() throws {
        let candidates = [
            MatchCandidate(key: "/books/OL1M", workKey: "/works/OL1W", title: "Dune", authors: ["Frank Herbert"], score: 0.7),
            MatchCandidate(key: "/books/OL2M", title: "Dune (Abridged)", authors: ["Frank Herbert"], score: 0.69),
        ]
        let rows = [
            row(rec("Dune", by: "Frank Herbert", match: MatchResult(status: .needsReview, candidates: candidates)), id: 1),
            row(rec("Emma", by: "Jane Austen", match: MatchResult(status: .needsReview, candidates: candidates)), id: 2),
        ]
        let fixture = try ImportFixture(directory: temp.file("runs/r1"), rows: rows)
        _ = try merge(fixture)
        #expect(try libraryBooks(workspace).allSatisfy { $0.needsReview == true })
        let desk = ReviewDesk(workspace: workspace, runDirectory: fixture.directory)
        #expect(try desk.listing().contains("row 2: Dune"))
        #expect(throws: LibraryError.self) { try desk.decide(row: 99, accept: "1") }
        #expect(throws: LibraryError.self) { try desk.decide(row: 2, accept: "3") }
        #expect(throws: LibraryError.self) { try desk.decide(row: 2, accept: "/books/NOPE") }
        try desk.decide(row: 2, accept: "2")
        try desk.decide(row: 2, accept: "/books/OL1M")  // a second decision replaces the first
        try desk.decide(row: 3, accept: nil)
        let decisions = try ReviewDecisions.load(workspace: workspace)
        #expect(decisions.decisions.count == 2)

        _ = try merge(fixture, importId: "rerun")
        let books = try libraryBooks(workspace)
        let dune = try #require(books.first { $0.title == "Dune" })
        #expect(dune.editionKey == "/books/OL1M")
        #expect(dune.workKey == "/works/OL1W")
        #expect(dune.needsReview == nil)
        #expect(dune.reviewDecision == "accepted")
        let emma = try #require(books.first { $0.title == "Emma" })
        #expect(emma.editionKey == nil)
        #expect(emma.needsReview == nil)
        #expect(emma.reviewDecision == "rejected")
        let review = try readJSONFile(ReviewList.self, from: fixture.directory + "/review.json")
        #expect(review.items.isEmpty)
        // Applying again is a no-op.
        let bytes = fileBytes(workspace.libraryFile)
        _ = try merge(fixture, importId: "rerun-2")
        #expect(fileBytes(workspace.libraryFile) == bytes)
    }

    @Test func dedupeMarksRowsAgainstTheLibrary() throws {
        let fixture = try ImportFixture(directory: temp.file("d1"), rows: [row(rec("Dune", by: "Frank Herbert"), id: 1)])
        _ = try merge(fixture)
        let second = try ImportFixture(
            directory: temp.file("d2"),
            rows: [
                row(rec("Dune", by: "Herbert, Frank"), id: 1),
                row(rec("Emma", by: "Jane Austen"), id: 2),
                row(rec("emma", by: "Austen, Jane"), id: 3),
                row(rec("dune", by: "F. Herbert"), id: 4),
            ])
        let output = temp.file("d2/deduped.ndjson.gz")
        let report = try DedupeStage.run(input: second.records, output: output, workspace: workspace)
        #expect(report.rowsIn == 4)
        #expect(report.inLibrary == 1)
        #expect(report.new == 1)
        #expect(report.duplicateInFile == 2)
        let marks = try NDJSONReader<BookRecord>(path: output).readAll().map { $0.dedupe! }
        #expect(marks.map(\.status) == [.inLibrary, .new, .duplicateInFile, .duplicateInFile])
        #expect(marks[2].firstLine == 3)
        #expect(marks[3].firstLine == 2)
        #expect(marks[3].bookId == marks[0].bookId)
        // Its scratch file (the books' ids) was unlinked once open: only the output is left.
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: temp.file("d2"))).contains { $0.hasPrefix(".book-ids") })
    }

    @Test(.bug(id: 21)) func dedupeResolvesAgainWhenTheRowsOfAnISBNSayMoreOfItsTitle() throws {
        let isbn = "9780375507250"
        let fixture = try ImportFixture(
            directory: temp.file("d5"),
            rows: [
                row(rec("Cloud Atlas", by: "David Mitchell", isbn13: isbn), id: 1),
                row(rec("Cloud Atlas: A Novel", by: "David Mitchell"), id: 2),
                row(rec("Cloud Atlas: Book Three", by: "David Mitchell", isbn13: isbn), id: 3),
                row(rec("Cloud Atlas: A Novel", by: "David Mitchell"), id: 4),
            ])
        let output = temp.file("d5/deduped.ndjson.gz")
        let report = try DedupeStage.run(input: fixture.records, output: output, workspace: workspace)
        let marks = try NDJSONReader<BookRecord>(path: output).readAll().map { $0.dedupe! }
        // The ISBN's rows say `Book Three`: the novel's rows are another book, not joined to the first by title.
        #expect(marks.map(\.status) == [.new, .new, .duplicateInFile, .duplicateInFile])
        #expect(marks[1].bookId != marks[0].bookId)
        #expect(marks[2].bookId == marks[0].bookId)
        #expect(marks[3].bookId == marks[1].bookId)
        #expect(report.new == 2)
    }

    @Test(.bug(id: 12)) func dedupeIntoAMissingDirectoryNamesTheOutput() throws {
        let fixture = try ImportFixture(directory: temp.file("d3"), rows: [row(rec("Dune", by: "Frank Herbert"), id: 1)])
        let output = temp.file("d3/no-such-directory/deduped.ndjson.gz")
        do {
            _ = try DedupeStage.run(input: fixture.records, output: output, workspace: workspace)
            Issue.record("dedupe wrote into a directory that does not exist")
        } catch let error as FileError {
            #expect(error == .cannotCreate(path: output, reason: "No such file or directory"))
            #expect(error.exitStatus == .cannotCreate)
        }
    }

    /// A merge failing after its fold (failed-rows.csv cannot be created) leaves the library as it was
    /// and no temporary library beside it: the writer dropped uncommitted removes its file.
    @Test func mergeFailingAfterTheFoldLeavesNoTemporaryLibrary() throws {
        let fixture = try ImportFixture(
            directory: temp.file("f1"), rows: [row(rec("Dune", by: "Frank Herbert", isbn13: "9780441172719"), id: 1)])
        var request = fixture.request()
        request.outputs[.failedRows] = temp.file("f1/no-such-directory/failed-rows.csv")
        #expect(throws: FileError.self) { try MergeStage.run(request, workspace: workspace) }
        #expect(!FileManager.default.fileExists(atPath: workspace.libraryFile))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: workspace.libraryDirectory).filter { $0.contains(".tmp-") } == [])
    }

    /// An interrupted dedupe leaves no temporary output beside the output it did not write.
    @Test func interruptedDedupeLeavesNoTemporaryOutput() throws {
        let fixture = try ImportFixture(directory: temp.file("f2"), rows: [row(rec("Dune", by: "Frank Herbert"), id: 1)])
        let cancellation = CancellationFlag()
        cancellation.cancel()
        let output = temp.file("f2/out/deduped.ndjson.gz")
        try FileManager.default.createDirectory(atPath: temp.file("f2/out"), withIntermediateDirectories: true)
        #expect(throws: TryLaterError.self) {
            try DedupeStage.run(input: fixture.records, output: output, workspace: workspace, cancellation: cancellation)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.file("f2/out")) == [])
    }

    /// An interrupted merge leaves no temporary ledger beside the ledger it did not write.
    @Test func interruptedMergeLeavesNoTemporaryLedger() throws {
        let fixture = try ImportFixture(directory: temp.file("f3"), rows: [row(rec("Dune", by: "Frank Herbert"), id: 1)])
        let cancellation = CancellationFlag()
        cancellation.cancel()
        #expect(throws: TryLaterError.self) {
            try MergeStage.run(fixture.request(), workspace: workspace, cancellation: cancellation)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.file("f3")).filter { $0.contains(".tmp-") } == [])
    }
}
