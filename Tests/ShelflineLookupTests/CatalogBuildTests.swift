import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLookup

/// The full-text table is filled by one SQL statement (issue 12): each edition's authors come from
/// its own ids or else its work's, one id or several, each followed through a redirect, and an
/// author id with no author line adds nothing.
@Suite struct CatalogSearchBuildTests {
    @Test(.bug(id: 12)) func fullTextTableHoldsEveryAuthorOfEachEditionResolvedLikeLoadEdition() throws {
        let directory = TemporaryDirectory("lookup-catalog-search")
        let lines = [
            LookupFixtures.dumpLine("author", "/authors/OL1A", #"{"name": "Ann Zedd"}"#),
            LookupFixtures.dumpLine("author", "/authors/OL2A", #"{"name": "Bo Quill"}"#),
            LookupFixtures.dumpLine("redirect", "/authors/OL3A", #"{"location": "/authors/OL4A"}"#),
            LookupFixtures.dumpLine("author", "/authors/OL4A", #"{"name": "Cy Moved"}"#),
            LookupFixtures.dumpLine(
                "work", "/works/OL1W",
                #"{"title": "W", "authors": [{"author": {"key": "/authors/OL2A"}}, {"author": {"key": "/authors/OL3A"}}]}"#),
            LookupFixtures.dumpLine("work", "/works/OL2W", #"{"title": "W", "authors": [{"author": {"key": "/authors/OL1A"}}]}"#),
            // Several authors, one of them redirected and one unknown.
            LookupFixtures.dumpLine(
                "edition", "/books/OL1M",
                #"{"title": "Glass River", "authors": [{"key": "/authors/OL1A"}, {"key": "/authors/OL3A"}, {"key": "/authors/OL99A"}]}"#
            ),
            // No authors of its own: the work's two.
            LookupFixtures.dumpLine(
                "edition", "/books/OL2M", #"{"title": "Night", "subtitle": "A Glass Tale", "works": [{"key": "/works/OL1W"}]}"#),
            // Its own single author wins over the work's.
            LookupFixtures.dumpLine(
                "edition", "/books/OL3M",
                #"{"title": "Glass Tower", "authors": [{"key": "/authors/OL2A"}], "works": [{"key": "/works/OL2W"}]}"#),
            // Only a redirected author.
            LookupFixtures.dumpLine("edition", "/books/OL4M", #"{"title": "Glass Moon", "authors": [{"key": "/authors/OL3A"}]}"#),
            // Only an unknown author: no author names at all.
            LookupFixtures.dumpLine(
                "edition", "/books/OL5M", #"{"title": "Glass Nobody", "authors": [{"key": "/authors/OL98A"}]}"#),
        ]
        try GzipFixture.write(text: lines.joined(), to: directory.file("dump.txt.gz"))
        let index = try CatalogIndex.open(
            dumps: [directory.file("dump.txt.gz")], cacheDirectory: directory.file("cache"),
            log: Logfmt(quiet: true))
        let expected: [(surname: String, editions: [Int])] = [
            ("zedd", [1]), ("ann", [1]), ("moved", [1, 2, 4]), ("quill", [2, 3]), ("cy", [1, 2, 4]), ("nobody", []),
        ]
        for (surname, editions) in expected {
            #expect(
                try index.fullTextAuthorEditions(surname: surname, words: ["glass"], limit: 10).sorted() == editions, "\(surname)"
            )
        }
        // The subtitle is searched with the title; the author column holds names only.
        #expect(try index.fullTextAuthorEditions(surname: "quill", words: ["tale"], limit: 10) == [2])
        #expect(try index.fullTextAuthorEditions(surname: "glass", words: ["glass"], limit: 10).isEmpty)
        #expect(try index.candidates(title: "Glass Nobody", author: nil, limit: 5).map(\.title) == ["Glass Nobody"])
    }
}

/// Dump lines are parsed on two threads and must still reach the writer in line order, every one
/// once, with its number, whatever batch it fell in.
@Suite struct ParsedDumpReaderTests {
    @Test(.bug(id: 12)) func linesComeBackInOrderWithTheirNumbersAcrossManySmallBatches() throws {
        let directory = TemporaryDirectory("lookup-dump-reader")
        var lines: [String] = []
        for number in 1...1_000 {
            switch number % 10 {
            case 3: lines.append("\n")
            case 7: lines.append("not a dump line\n")
            default: lines.append(LookupFixtures.dumpLine("author", "/authors/OL\(number)A", #"{"name": "Author \#(number)"}"#))
            }
        }
        try GzipFixture.write(text: lines.joined(), to: directory.file("dump.txt.gz"))
        var seen: [Int] = []
        var batches = 0
        try ParsedDumpReader.forEachBatch(path: directory.file("dump.txt.gz"), batchSize: 7, queueLimit: 3) { batch in
            batches += 1
            for line in batch {
                seen.append(line.number)
                switch (line.number % 10, line.record) {
                case (3, nil): break
                case (7, .failure(let malformed)?): #expect(malformed.reason == "expected 5 tab-separated columns")
                case (_, .success(.author(let id, let name))?):
                    #expect(id == line.number && name == "Author \(line.number)", "line \(line.number)")
                default: Issue.record("line \(line.number): \(String(describing: line.record))")
                }
            }
        }
        #expect(seen == Array(1...1_000))
        #expect(batches == 143)
    }

    @Test(.bug(id: 12)) func anErrorFromTheWriterStopsEveryThread() throws {
        let directory = TemporaryDirectory("lookup-dump-reader")
        var text = ""
        for number in 1...500 { text += LookupFixtures.dumpLine("author", "/authors/OL\(number)A", #"{"name": "A"}"#) }
        try GzipFixture.write(text: text, to: directory.file("dump.txt.gz"))
        struct WriterFailed: Error {}
        var batches = 0
        #expect(throws: WriterFailed.self) {
            try ParsedDumpReader.forEachBatch(path: directory.file("dump.txt.gz"), batchSize: 5, queueLimit: 2) { _ in
                batches += 1
                if batches == 3 { throw WriterFailed() }
            }
        }
        #expect(batches == 3)
    }
}
