import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLookup

/// Issue 39 §2: ISBNdb behind Google Books' machinery, against a loopback server in its documented
/// shapes (`{"book": {…}}`, `{"total": N, "books": […]}`, `POST /books` answering
/// `{"total": N, "requested": N, "data": […]}`, 404 when unknown). A key is required.
@Suite struct IsbndbSourceTests {
    static let schwarm = LookupFixtures.isbn13("978345358200")

    static let schwarmBook = #"""
        {"title": "Der Schwarm", "authors": ["Frank Schätzing"], "publisher": "Fischer", \#
        "date_published": "2004", "pages": 992, "isbn13": "\#(schwarm)", "isbn": "\#(schwarm)", \#
        "image": "https://images.isbndb.com/covers/20/02/\#(schwarm).jpg"}
        """#

    static func server(
        fault: @escaping @Sendable (LoopbackRequest) -> LoopbackResponse? = { _ in nil }
    ) async throws -> LoopbackHTTPServer {
        try await LoopbackHTTPServer(immediate: { request in
            if let answer = fault(request) { return answer }
            switch request.path {
            case "/book/\(schwarm)":
                return .json(#"{"book": \#(schwarmBook)}"#)
            case "/books" where request.method == "POST":
                let asked = String(decoding: request.body, as: UTF8.self)
                let isbns = asked.hasPrefix("isbns=") ? asked.dropFirst(6).split(separator: ",") : []
                let data = isbns.contains { $0 == schwarm } ? [schwarmBook] : []
                return .json(#"{"total": \#(data.count), "requested": \#(isbns.count), "data": [\#(data.joined())]}"#)
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

    @Test(.bug(id: 39)) func foundByISBNWithTheKeyInTheAuthorizationHeader() async throws {
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

    @Test(.bug(id: 39)) func withoutAKeyTheSourceIsSkippedNotAnError() async throws {
        let server = try await Self.server()
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-isbndb")
        let records = [LookupFixtures.record(line: 2, title: "Der Schwarm", author: "Frank Schätzing", isbn13: Self.schwarm)]
        let run = try await OpenLibrarySourceTests.run(
            records, parameters: Self.parameters(server.baseURL, keyFile: nil), in: directory)
        #expect(run.records.map { $0.match?.status } == [.notEnriched])
        #expect(server.requests.isEmpty)
    }

    /// Many ISBNs go out in one `POST /books`; the image is the cover.
    @Test(.bug(id: 39)) func manyISBNsAreAskedInOnePostWithTheImageAsCover() async throws {
        let server = try await Self.server()
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-isbndb")
        chmod(directory.write("isbndb.key", "isbndb-secret-1\n"), 0o600)
        let others = (1...3).map { LookupFixtures.isbn13("97834535830\($0)") }
        let records = ([Self.schwarm] + others).enumerated().map { index, isbn in
            LookupFixtures.record(line: index + 2, title: "Der Schwarm", author: "Frank Schätzing", isbn13: isbn)
        }
        let run = try await OpenLibrarySourceTests.run(
            records, parameters: Self.parameters(server.baseURL, keyFile: "isbndb.key"), in: directory)
        #expect(run.records[0].match?.status == .matchedByIsbn)
        #expect(run.records[0].metadata?.coverURL == "https://images.isbndb.com/covers/20/02/\(Self.schwarm).jpg")
        let posts = server.requests.filter { $0.method == "POST" }
        #expect(posts.count == 1 && posts[0].path == "/books")
        let form = String(decoding: posts.first?.body ?? [], as: UTF8.self)
        #expect(form.hasPrefix("isbns="))
        #expect(Set(form.dropFirst(6).split(separator: ",").map(String.init)) == Set([Self.schwarm] + others))
        #expect(!server.requests.contains { $0.path.hasPrefix("/book/") }, "no ISBN asked alone")
    }

    /// A quota answer (403, 429) ends ISBNdb for the run: nothing more is sent, the counters name it.
    @Test(.bug(id: 39), arguments: [403, 429])
    func quotaAnswerEndsTheSource(_ status: Int) async throws {
        let server = try await Self.server { _ in .json(status: status, #"{"errorMessage": "quota exceeded"}"#) }
        defer { Task { try? await server.shutdown() } }
        let directory = TemporaryDirectory("lookup-isbndb")
        chmod(directory.write("isbndb.key", "isbndb-secret-1\n"), 0o600)
        let records = (1...3).map {
            LookupFixtures.record(
                line: $0 + 1, title: "Book \($0)", author: "Ann Author", isbn13: LookupFixtures.isbn13("97834535840\($0)"))
        }
        let run = try await OpenLibrarySourceTests.run(
            records, parameters: Self.parameters(server.baseURL, keyFile: "isbndb.key"), in: directory)
        #expect(server.requests.count == 1, "the first quota answer ends the source")
        #expect(run.report.http["isbndb"]?.quotaSpent?.contains("HTTP \(status)") == true)
        #expect(run.records.allSatisfy { $0.match?.reason == "isbndb quota spent" })
    }
}
