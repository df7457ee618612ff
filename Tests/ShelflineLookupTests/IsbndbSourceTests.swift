import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLookup

/// Issue 39 §2: ISBNdb behind Google Books' machinery, against a loopback server in its documented
/// shapes (`{"book": {…}}`, `{"total": N, "books": […]}`, 404 when unknown). A key is required.
@Suite struct IsbndbSourceTests {
    static let schwarm = LookupFixtures.isbn13("978345358200")

    static func server() async throws -> LoopbackHTTPServer {
        try await LoopbackHTTPServer(immediate: { request in
            switch request.path {
            case "/book/\(schwarm)":
                return .json(
                    #"""
                    {"book": {"title": "Der Schwarm", "authors": ["Frank Schätzing"], "publisher": "Fischer", \#
                    "date_published": "2004", "pages": 992, "isbn13": "\#(schwarm)", "isbn": "\#(schwarm)"}}
                    """#)
            case "/books/Der Schwarm":
                return .json(
                    #"{"total": 1, "books": [{"title": "Der Schwarm", "authors": ["Heinz Müller"], "isbn13": "9783000000019"}]}"#)
            default:
                return .json(status: 404, #"{"errorMessage": "Not Found"}"#)
            }
        })
    }

    static func parameters(_ baseURL: String, keyFile: String?) -> String {
        var section: [String: Any] = ["baseURL": baseURL, "requestsPerSecond": 50]
        if let keyFile { section["apiKeyFile"] = keyFile }
        let object: [String: Any] = ["sources": ["isbndb"], "isbndb": section]
        return String(decoding: try! JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    @Test(.bug("39")) func foundByISBNWithTheKeyInTheAuthorizationHeader() async throws {
        let server = try await Self.server()
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-isbndb")
        chmod(directory.write("isbndb.key", "isbndb-secret-1\n"), 0o600)
        let records = [
            LookupFixtures.record(line: 2, title: "Der Schwarm", author: "Frank Schätzing", isbn13: Self.schwarm),
            LookupFixtures.record(line: 3, title: "Der Schwarm", author: "Frank Schätzing"),
            LookupFixtures.record(line: 4, title: "Unknown", author: "Nobody", isbn13: LookupFixtures.isbn13("978345358201")),
        ]
        let run = try await OpenLibrarySourceTests.run(
            records, parameters: Self.parameters(server.baseURL, keyFile: "isbndb.key"),
            in: directory)
        #expect(
            run.records.map { $0.match?.status } == [.matchedByIsbn, .notEnriched, .notEnriched],
            "the ISBN found; the same title by another author not taken; a 404 is no candidate")
        #expect(run.records[0].match?.source == "isbndb")
        #expect(run.records[0].metadata?.pages == 992)
        #expect(run.records[2].match?.reason == "no candidate")
        #expect(server.requests.allSatisfy { $0.headers["authorization"] ?? $0.headers["Authorization"] == "isbndb-secret-1" })
    }

    @Test(.bug("39")) func withoutAKeyTheSourceIsSkippedNotAnError() async throws {
        let server = try await Self.server()
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-isbndb")
        let records = [LookupFixtures.record(line: 2, title: "Der Schwarm", author: "Frank Schätzing", isbn13: Self.schwarm)]
        let run = try await OpenLibrarySourceTests.run(
            records, parameters: Self.parameters(server.baseURL, keyFile: nil), in: directory)
        #expect(run.records.map { $0.match?.status } == [.notEnriched])
        #expect(server.requests.isEmpty)
    }
}
