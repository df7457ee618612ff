import Foundation
import ShelflineCore
import TestSupport
import TestTraits
import Testing

/// A review decision stays changeable after a run applied it, and the next run and a rebuild apply
/// the new one.
@Suite(.offCooperativePool) struct ReviewDecisionEndToEndTests {
    struct Book: Decodable, Equatable {
        var editionKey: String?
        var workKey: String?
        var reviewDecision: String?
        var needsReview: Bool?
    }

    /// An Open Library answering two works called "Kindred", and an export of one row that cannot
    /// tell them apart (no ISBN, no author): its row 2 needs review. Returns the server, the
    /// export and the options naming the config and workspace in `dir`.
    static func kindred(in dir: TemporaryDirectory) async throws -> (FakeOpenLibraryServer, String, [String]) {
        let server = try await FakeOpenLibraryServer(books: [
            "9780000000001": .init(key: "/books/OL1M", title: "Kindred", authors: ["Octavia E. Butler"], work: "/works/OL11W"),
            "9780000000002": .init(key: "/books/OL2M", title: "Kindred", authors: ["Sarah Reinhardt"], work: "/works/OL22W"),
        ])
        var config = try ConfigFile.shippedExample()
        config.editParameters(of: "lookup") { parameters in
            parameters["sources"] = ["openlibrary"]
            parameters["openLibrary"] = ["baseURL": server.baseURL, "requestsPerSecond": 50]
        }
        let configPath = try config.write(to: dir.file("pipeline.json"))
        let header = try String(contentsOfFile: PipelineEndToEndTests.example, encoding: .utf8).split(separator: "\n")[0]
        let csv = dir.write("export.csv", header + "\n1,Kindred,,,,=\"\",=\"\",4,4.0,,,,,,,2024/01/01,,,read,,,,1,0\n")
        return (server, csv, ["--config", configPath, "--workspace", dir.file("ws")])
    }

    @Test(.bug(id: 36)) func aDecisionARunAppliedCanBeChangedAndTheNextRunAppliesIt() async throws {
        let dir = TemporaryDirectory("review-change")
        let (server, csv, common) = try await Self.kindred(in: dir)
        defer { Task { try? await server.shutdown() } }
        func shelfline(_ arguments: [String]) throws -> ProcessResult {
            let result = try ExecutableRunner.run("shelfline", arguments + common, in: dir.path)
            #expect(result.status == 0, "\(result)")
            return result
        }
        func book() throws -> Book? { try NDJSONReader<Book>(path: dir.file("ws/library/library.ndjson.gz")).readAll().first }

        _ = try shelfline(["run", "--csv", csv])
        _ = try shelfline(["review", "reject", "2"])
        _ = try shelfline(["run", "--csv", csv])
        #expect(try book() == Book(reviewDecision: "rejected"))

        // The rejected row is still listed, as decided, and can be accepted.
        let list = try shelfline(["review", "list"])
        #expect(list.stdout.contains("row 2: Kindred") && list.stdout.contains("[rejected]"), "\(list)")
        let butler = list.stdout.contains("1. /works/OL11W") ? "1" : "2"
        _ = try shelfline(["review", "accept", "2", butler])
        let accepted = try shelfline(["run", "--csv", csv])
        #expect(!accepted.stdout.hasPrefix("already imported"), "the new decision is applied: \(accepted)")
        #expect(try book() == Book(workKey: "/works/OL11W", reviewDecision: "accepted"))

        // And back: a rejection takes the accepted candidate away again; a rebuild agrees.
        _ = try shelfline(["review", "reject", "2"])
        _ = try shelfline(["run", "--csv", csv])
        #expect(try book() == Book(reviewDecision: "rejected"))
        let rebuild = try shelfline(["rebuild"])
        #expect(rebuild.stdout.contains("library unchanged"), "\(rebuild)")
    }
}
