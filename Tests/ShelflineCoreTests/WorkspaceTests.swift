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
        Case(
            flag: nil, environment: ["HOME": "/home/reader", "SHELFLINE_WORKSPACE": "~/ws"], config: nil,
            expected: "/home/reader/ws"),
        Case(flag: nil, environment: ["HOME": "/home/reader"], config: "~/from-config", expected: "/home/reader/from-config"),
        Case(flag: "./a/./b/../c/", environment: [:], config: nil, expected: "/work/dir/a/c"),
        // Only a leading `~` is the home directory.
        Case(flag: "shelf/~", environment: ["HOME": "/home/reader"], config: nil, expected: "/work/dir/shelf/~"),
        Case(flag: "/abs/ws", environment: ["HOME": "/home/reader"], config: nil, expected: "/abs/ws"),
    ]

    @Test(.bug(id: 9), arguments: cases) func workspaceIsResolvedOnce(_ test: Case) throws {
        let config = PipelineConfig(workspace: test.config, stages: [])
        let workspace = try Workspace.resolve(
            flag: test.flag, environment: test.environment, config: config,
            currentDirectory: "/work/dir")
        #expect(workspace.root == test.expected)
        #expect(workspace.libraryFile == test.expected + "/library/library.ndjson.gz")
    }

    @Test(.bug(id: 9)) func tildeWithoutHomeUsesThePasswordDatabase() throws {
        let resolved = try Workspace.resolve(flag: "~/ws", environment: [:], config: nil, currentDirectory: "/work/dir")
        #expect(resolved.root.hasPrefix("/"))
        #expect(!resolved.root.contains("~"))
        #expect(resolved.root.hasSuffix("/ws"))
    }

    @Test(.bug(id: 9)) func contextCarriesTheResolvedWorkspace() {
        let context = StageContext(config: PipelineConfig(workspace: "relative-ws", stages: []))
        #expect(context.workspace.root == FileManager.default.currentDirectoryPath + "/relative-ws")
    }

    /// Without a working directory (deleted under the process), a relative workspace is an error
    /// naming the cause, never a path under `/`; an absolute one, or `~`, needs none.
    @Test(.bug(id: 23)) func relativeWorkspaceWithoutAWorkingDirectoryIsRefused() throws {
        for given in ["./var", "rel/ws", "var"] {
            let error = #expect(throws: FileError.self) {
                try Workspace.resolve(flag: given, environment: [:], config: nil, currentDirectory: nil)
            }
            guard case .cannotCreate(let path, let reason)? = error else {
                Issue.record("expected cannotCreate, got \(String(describing: error))")
                continue
            }
            #expect(path == given)
            #expect(reason.contains("the working directory no longer exists"))
        }
        #expect(try Workspace.resolve(flag: "/abs/ws", environment: [:], config: nil, currentDirectory: nil).root == "/abs/ws")
        #expect(
            try Workspace.resolve(flag: "~/ws", environment: ["HOME": "/home/reader"], config: nil, currentDirectory: nil).root
                == "/home/reader/ws")
        do {
            _ = try Workspace.absolute("export.csv", in: nil, role: .input)
            Issue.record("a relative input without a working directory was resolved")
        } catch {
            #expect(ExitStatus(for: error) == .noInput)
            #expect("\(error)".hasPrefix("export.csv: cannot read input: a relative path"))
        }
    }
}
