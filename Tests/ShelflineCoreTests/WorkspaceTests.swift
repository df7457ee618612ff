import Foundation
import ShelflineCore
import Testing

/// The one workspace resolver (issue 9): precedence, `~`, relative paths.
@Suite struct WorkspaceTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var flag: String?
        var environment: [String: String]
        var config: String?
        var expected: String
        var testDescription: String { "\(flag ?? "-") \(environment) \(config ?? "-") → \(expected)" }
    }

    static let cases: [Case] = [
        Case(flag: nil, environment: [:], config: nil, expected: "/work/dir/var"),
        Case(flag: nil, environment: [:], config: "books", expected: "/work/dir/books"),
        Case(flag: nil, environment: ["SHELFLINE_WORKSPACE": "/srv/ws"], config: "books", expected: "/srv/ws"),
        Case(flag: "../other", environment: ["SHELFLINE_WORKSPACE": "/srv/ws"], config: "books", expected: "/work/other"),
        Case(flag: "~", environment: ["HOME": "/home/reader"], config: nil, expected: "/home/reader"),
        Case(flag: "~/shelf", environment: ["HOME": "/home/reader"], config: nil, expected: "/home/reader/shelf"),
        Case(flag: "~/shelf", environment: ["HOME": "/home/reader/"], config: nil, expected: "/home/reader/shelf"),
        Case(flag: nil, environment: ["HOME": "/home/reader", "SHELFLINE_WORKSPACE": "~/ws"], config: nil, expected: "/home/reader/ws"),
        Case(flag: nil, environment: ["HOME": "/home/reader"], config: "~/from-config", expected: "/home/reader/from-config"),
        Case(flag: "./a/./b/../c/", environment: [:], config: nil, expected: "/work/dir/a/c"),
        // Only a leading `~` is the home directory.
        Case(flag: "shelf/~", environment: ["HOME": "/home/reader"], config: nil, expected: "/work/dir/shelf/~"),
        Case(flag: "/abs/ws", environment: ["HOME": "/home/reader"], config: nil, expected: "/abs/ws"),
    ]

    @Test(arguments: cases) func issue9_workspaceIsResolvedOnce(_ test: Case) {
        let config = PipelineConfig(workspace: test.config, stages: [])
        let workspace = Workspace.resolve(flag: test.flag, environment: test.environment, config: config,
                                          currentDirectory: "/work/dir")
        #expect(workspace.root == test.expected)
        #expect(workspace.libraryFile == test.expected + "/library/library.ndjson.gz")
    }

    @Test func issue9_tildeWithoutHomeUsesThePasswordDatabase() {
        let resolved = Workspace.resolve(flag: "~/ws", environment: [:], config: nil, currentDirectory: "/work/dir")
        #expect(resolved.root.hasPrefix("/"))
        #expect(!resolved.root.contains("~"))
        #expect(resolved.root.hasSuffix("/ws"))
    }

    @Test func issue9_contextCarriesTheResolvedWorkspace() {
        let context = StageContext(config: PipelineConfig(workspace: "relative-ws", stages: []))
        #expect(context.workspace.root == FileManager.default.currentDirectoryPath + "/relative-ws")
    }
}
