import Clocks
import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLookup

/// Each source asked by its own id (rows that carry only an Open Library key; a stored volume id),
/// against loopback servers in the documented shapes, and covers from whichever source has one.
@Suite struct SourceIDLookupTests {
    static let editionRecord = #"""
        {"key": "/books/OL7353617M", "title": "Fantastic Mr. Fox", "authors": [{"key": "/authors/OL34184A"}], \#
        "publishers": ["Puffin"], "number_of_pages": 96, "publish_date": "October 1, 1988", \#
        "isbn_13": ["9780140328721"], "isbn_10": ["0140328726"], "covers": [8739161], \#
        "works": [{"key": "/works/OL45804W"}], "type": {"key": "/type/edition"}}
        """#
    static let workRecord = #"""
        {"key": "/works/OL45804W", "title": "Fantastic Mr Fox", "covers": [6498519], \#
        "authors": [{"author": {"key": "/authors/OL34184A"}, "type": {"key": "/type/author_role"}}], \#
        "description": {"type": "/type/text", "value": "A fox outwits three farmers."}, "type": {"key": "/type/work"}}
        """#

    static func openLibrary() async throws -> LoopbackHTTPServer {
        try await LoopbackHTTPServer(immediate: { request in
            switch request.path {
            case "/books/OL7353617M.json": return .json(editionRecord)
            case "/works/OL45804W.json": return .json(workRecord)
            default: return .json(status: 404, #"{"error": "notfound", "key": "\#(request.path)"}"#)
            }
        })
    }

    @Test(.bug(id: 39)) func openLibraryEditionAndWorkIdsAreAskedAsTheirRecords() async throws {
        let server = try await Self.openLibrary()
        defer { Task { try? await server.shutdown() } }
        var parameters = OpenLibraryParameters()
        parameters.baseURL = server.baseURL
        let source = try #require(try OpenLibrarySource.make(parameters, setup: .test(clock: PacingClock(ImmediateClock()))))
        let found = try await source.editions(ids: ["/books/OL7353617M", "OL45804W", "/books/OL1M", "/authors/OL34184A", "../x"])
        #expect(found.keys.sorted() == ["/books/OL7353617M", "OL45804W"], "an unknown id and other shapes are absent")
        let edition = try #require(found["/books/OL7353617M"])
        #expect(edition.editionKey == "/books/OL7353617M" && edition.workKey == "/works/OL45804W")
        #expect(edition.isbn13 == "9780140328721" && edition.pages == 96 && edition.coverId == 8739161)
        #expect(edition.source == "openlibrary")
        let work = try #require(found["OL45804W"])
        #expect(work.editionKey == nil && work.workKey == "/works/OL45804W", "a work claims no edition")
        #expect(work.description == "A fox outwits three farmers." && work.coverId == 6498519)
        #expect(edition.authors == nil, "an author the API does not know is left out")
        #expect(
            server.requests.map(\.path).sorted() == [
                "/authors/OL34184A.json", "/authors/OL34184A.json", "/books/OL1M.json", "/books/OL7353617M.json",
                "/works/OL45804W.json",
            ], "one request per id of the right shape, and per author a found record names; no other is sent")
    }

    @Test(.bug(id: 39)) func catalogFindsEditionsByTheirKey() async throws {
        let directory = TemporaryDirectory("lookup-ids")
        let index = try CatalogIndex.open(
            dumps: LookupFixtures.sampleCatalog, cacheDirectory: directory.file("cache"), log: Logfmt(quiet: true))
        let source = CatalogSource(index: index)
        let found = try await source.editions(ids: ["/books/OL920001M", "OL920002M", "/books/OL1M", "/works/OL920001W"])
        #expect(found.keys.sorted() == ["/books/OL920001M", "OL920002M"])
        #expect(found["/books/OL920001M"]?.isbn13 == "9780441478125")
        #expect(found["OL920002M"]?.editionKey == "/books/OL920002M")
    }

    @Test(.bug(id: 39)) func googleBooksVolumeIdIsAskedAsTheVolumeWithItsCoverOverHTTPS() async throws {
        let volume = FakeGoogleBooksServer.Volume(
            id: "zyTCAlFPjgYC", title: "Der Schwarm", authors: ["Frank Schätzing"], isbn13: "9783453582002")
        let server = try await FakeGoogleBooksServer(volumes: [volume])
        defer { Task { try? await server.shutdown() } }
        var parameters = GoogleBooksParameters()
        parameters.baseURL = server.baseURL
        let source = try #require(try GoogleBooksSource.make(parameters, setup: .test(clock: PacingClock(ImmediateClock()))))
        let found = try await source.editions(ids: ["zyTCAlFPjgYC", "unknownVol01", "a/b?c"])
        #expect(found.keys.sorted() == ["zyTCAlFPjgYC"])
        let edition = try #require(found["zyTCAlFPjgYC"])
        #expect(edition.editionKey == "zyTCAlFPjgYC" && edition.title == "Der Schwarm" && edition.pages == 320)
        #expect(
            edition.coverURL == "https://books.google.com/books/content?id=zyTCAlFPjgYC&zoom=1",
            "the thumbnail, asked over https")
        #expect(
            server.requests.map(\.path).sorted() == ["/books/v1/volumes/unknownVol01", "/books/v1/volumes/zyTCAlFPjgYC"])
    }

    @Test(arguments: [
        ("http://books.google.com/books/content?id=x&zoom=1", "https://books.google.com/books/content?id=x&zoom=1"),
        ("https://images.isbndb.com/covers/12/34/9783453582002.jpg", "https://images.isbndb.com/covers/12/34/9783453582002.jpg"),
        ("javascript:alert(1)", nil), ("ftp://example.com/c.jpg", nil), ("/relative.jpg", nil), ("", nil),
    ])
    func coverURLsAreHTTPSOnly(_ given: String, _ expected: String?) {
        #expect(SourceEndpoint.coverURL(given) == expected)
    }
}

extension SourceSetup {
    /// For a source made on its own, outside a stage.
    static func test(clock: PacingClock) -> SourceSetup {
        SourceSetup(
            configPath: "pipeline.json", clock: clock, userAgent: "test", cacheDirectory: "", log: Logfmt(quiet: true),
            now: Date(timeIntervalSince1970: 0), isCancelled: { false }, announce: { _ in })
    }
}
