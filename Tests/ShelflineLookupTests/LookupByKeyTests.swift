import Clocks
import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLookup

/// Rows that name their book by a source's own id (`BookRecord.identifiers`): each source that
/// reads one of the row's schemes is asked by it; a row without a title of its own takes the
/// answer as its book, a row with a title only when the matcher accepts it.
@Suite struct LookupByKeyTests {
    typealias Book = FakeOpenLibraryServer.Book
    static let foxISBN = LookupFixtures.isbn13("978014032872")
    static let fox = Book(
        key: "/books/OL7353617M", title: "Fantastic Mr. Fox", authors: ["Roald Dahl"], work: "/works/OL45804W")
    static let witches = Book(key: "/books/OL1000001M", title: "The Witches", authors: ["Roald Dahl"], work: "/works/OL1000001W")

    /// A reading-log row: its key as a placeholder title, its keys, its shelf.
    static func readingLogRow(line: Int, work: String?, edition: String? = nil) -> BookRecord {
        var record = BookRecord(format: .openlibrary, line: line, title: work ?? edition ?? "")
        record.titleIsPlaceholder = true
        var identifiers: [String: String] = [:]
        identifiers["openlibrary-work"] = work
        identifiers["openlibrary-edition"] = edition
        record.identifiers = identifiers
        record.shelf = "to-read"
        return record
    }

    static func openLibrary() async throws -> FakeOpenLibraryServer {
        try await FakeOpenLibraryServer(books: [foxISBN: fox, LookupFixtures.isbn13("978014032873"): witches])
    }

    @Test(.bug(id: 40)) func placeholderRowIsMatchedByItsKeyWithTheBooksTitleAndAuthors() async throws {
        let server = try await Self.openLibrary()
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-keys")
        let records = [
            Self.readingLogRow(line: 2, work: "OL45804W"),
            Self.readingLogRow(line: 3, work: "OL45804W", edition: "OL7353617M"),
            Self.readingLogRow(line: 4, work: "OL999W"),
        ]
        let run = try await OpenLibrarySourceTests.run(
            records, parameters: OpenLibrarySourceTests.parameters(server.baseURL), in: directory)

        let work = try #require(run.records.first { $0.line == 2 })
        #expect(work.match?.status == .matchedByIsbn && work.match?.source == "openlibrary", "\(String(describing: work.match))")
        #expect(work.match?.workKey == "/works/OL45804W" && work.match?.editionKey == nil, "a work claims no edition")
        #expect(work.metadata?.title == "Fantastic Mr. Fox" && work.metadata?.authors == ["Roald Dahl"])
        let edition = try #require(run.records.first { $0.line == 3 })
        #expect(edition.match?.editionKey == "/books/OL7353617M", "the edition key is asked before the work's")
        #expect(edition.metadata?.isbn13 == Self.foxISBN && edition.metadata?.authors == ["Roald Dahl"])
        let unknown = try #require(run.records.first { $0.line == 4 })
        #expect(unknown.match?.status == .notEnriched && unknown.match?.reason == "no source knows its key")
        #expect(unknown.title == "OL999W" && unknown.shelf == "to-read", "the row is kept as it came")

        let paths = Set(server.requests.map(\.path))
        #expect(paths.isSuperset(of: ["/works/OL45804W.json", "/books/OL7353617M.json", "/works/OL999W.json"]), "\(paths)")
        #expect(!paths.contains("/search.json"), "a key is no title to search for")
        #expect(paths.contains(FakeOpenLibraryServer.authorKey("Roald Dahl") + ".json"), "the author's name is asked")
    }

    @Test(.bug(id: 40)) func keyAnswersAreCachedFoundAndNotFound() async throws {
        let server = try await Self.openLibrary()
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-keys")
        let records = [Self.readingLogRow(line: 2, work: "OL45804W"), Self.readingLogRow(line: 3, work: "OL999W")]
        let parameters = OpenLibrarySourceTests.parameters(server.baseURL)
        let first = try await OpenLibrarySourceTests.run(records, parameters: parameters, in: directory)
        let asked = server.requests.count
        #expect(asked >= 2)
        let second = try await OpenLibrarySourceTests.run(records, parameters: parameters, in: directory)
        #expect(server.requests.count == asked, "both answers came from the cache")
        #expect(second.report.cacheHits == 2)
        #expect(second.records.map(\.match) == first.records.map(\.match))
        #expect(second.records.first?.metadata?.title == "Fantastic Mr. Fox")
    }

    /// A row with a title of its own and a key: the key's answer passes the matcher, so a wrong key
    /// (another book's) attaches nothing and the row goes on to its ISBN and its title.
    @Test(.bug(id: 40)) func keyOfARowWithItsOwnTitleIsTakenOnlyWhenTheMatcherAccepts() async throws {
        let server = try await Self.openLibrary()
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-keys")
        var right = LookupFixtures.record(line: 2, title: "Fantastic Mr. Fox", author: "Roald Dahl")
        right.identifiers = ["openlibrary-edition": "OL7353617M"]
        var wrong = LookupFixtures.record(line: 3, title: "Fantastic Mr. Fox", author: "Roald Dahl")
        wrong.identifiers = ["openlibrary-edition": "OL1000001M"]
        let run = try await OpenLibrarySourceTests.run(
            [right, wrong], parameters: OpenLibrarySourceTests.parameters(server.baseURL), in: directory)
        #expect(run.records[0].match?.status == .matchedByIsbn && run.records[0].match?.editionKey == "/books/OL7353617M")
        #expect(run.records[0].metadata?.title == "Fantastic Mr. Fox")
        #expect(run.records[1].match?.editionKey != "/books/OL1000001M", "\(String(describing: run.records[1].match))")
        #expect(run.records[1].metadata?.title != "The Witches")
        #expect(run.records[1].match?.status == .matchedBySearch && run.records[1].match?.workKey == "/works/OL45804W")
    }

    /// Google Books reads its own scheme (`google`, Calibre's volume id): the engine asks each
    /// source by the schemes it declares, not Open Library's alone.
    @Test(.bug(id: 40)) func eachSourceIsAskedByTheSchemesItReads() async throws {
        let volume = FakeGoogleBooksServer.Volume(
            id: "zyTCAlFPjgYC", title: "Der Schwarm", authors: ["Frank Schätzing"], isbn13: "9783453582002")
        let server = try await FakeGoogleBooksServer(volumes: [volume])
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-keys")
        var byVolume = BookRecord(format: .calibre, line: 2, title: "zyTCAlFPjgYC")
        byVolume.titleIsPlaceholder = true
        byVolume.identifiers = ["google": "zyTCAlFPjgYC", "openlibrary-work": "OL45804W"]
        let run = try await OpenLibrarySourceTests.run(
            [byVolume], parameters: GoogleBooksSourceTests.parameters(server.baseURL), in: directory)
        #expect(run.records[0].match?.status == .matchedByIsbn && run.records[0].match?.source == "googlebooks")
        #expect(run.records[0].metadata?.title == "Der Schwarm")
        #expect(server.requests.map(\.path) == ["/books/v1/volumes/zyTCAlFPjgYC"], "only the volume id; no search")
    }

    /// The engine with a source of a test's own: the scheme it declares is all it is asked by.
    @Test(.bug(id: 40)) func engineAsksASourceByTheSchemeItDeclares() async throws {
        let toy = ToySource()
        let engine = LookupEngine(
            sources: [toy], cache: nil, matcher: Matcher(), searchLimit: 20, now: { Date(timeIntervalSince1970: 0) })
        let queries = [
            RecordQuery(
                query: LookupQuery(title: "", authors: []), identifiers: ["toy": "T1", "other": "X"],
                titleIsPlaceholder: true),
            RecordQuery(query: LookupQuery(title: "", authors: []), identifiers: ["other": "T1"], titleIsPlaceholder: true),
        ]
        let outcomes = try await engine.resolve(queries)
        #expect(outcomes[0].match.status == .matchedByIsbn && outcomes[0].metadata?.title == "Toy Book")
        #expect(outcomes[1].match.status == .notEnriched)
        #expect(toy.asked.value == [["T1"]])
    }

    /// A local source that knows one book by its id `T1`, under the scheme `toy`.
    final class ToySource: MetadataSource, @unchecked Sendable {
        let asked = LockedBox<[[String]]>([])
        var name: String { "toy" }
        var isRemote: Bool { false }
        var isbnBatchSize: Int { 10 }
        var identifierSchemes: [String] { ["toy"] }
        func editions(isbns: [String]) async throws -> [String: EditionMetadata] { [:] }
        func candidates(title: String, author: String?, limit: Int) async throws -> [EditionMetadata] { [] }
        func editions(ids: [String]) async throws -> [String: EditionMetadata] {
            asked.mutate { $0.append(ids) }
            var edition = EditionMetadata(source: name)
            edition.editionKey = "T1"
            edition.title = "Toy Book"
            return ids.contains("T1") ? ["T1": edition] : [:]
        }
    }

    /// A value behind a lock.
    final class LockedBox<Value>: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Value
        init(_ value: Value) { stored = value }
        var value: Value { lock.withLock { stored } }
        func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
    }
}
