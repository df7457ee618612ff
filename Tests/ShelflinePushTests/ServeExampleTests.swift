import Foundation
import ShelflineCore
import ShelflinePush
import TestSupport
import TestTraits
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The README's `serve` example, run as written by bash (issue 27's "done when"): add a device,
/// `curl` a token in, `curl` a refresh, and the push arrives at the loopback APNs. The block is
/// read from README.md (after `<!-- serve example -->`); the only substitution is the port
/// (8787 → a free one). It runs in a directory whose `pipeline.json` points `beerQueue` at a
/// loopback site serving examples/beer-queue/queue.html and `apns` at the loopback APNs, with the
/// built executables first on PATH. Each `# {…}` comment in the block is the answer the `curl`
/// above it must print.
@Suite(.bug(id: 27), .offCooperativePool) struct ServeExampleTests {
    static let marker = "<!-- serve example -->"

    /// The first ```sh block after `marker` in `file`.
    static func exampleBlock(in file: String) throws -> String {
        let text = try String(contentsOfFile: ExecutableRunner.repositoryRoot + "/" + file, encoding: .utf8)
        guard let mark = text.range(of: marker), let open = text.range(of: "```sh\n", range: mark.upperBound..<text.endIndex),
            let close = text.range(of: "\n```", range: open.upperBound..<text.endIndex)
        else {
            throw RawConnectionError("\(file): no ```sh block after \(marker)")
        }
        return String(text[open.upperBound..<close.lowerBound])
    }

    /// A port nothing listens on now (the kernel's pick, released).
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw RawConnectionError("no free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func theReadmeExampleRunsAsWrittenAndThePushArrives() async throws {
        let block = try Self.exampleBlock(in: "README.md")
        #expect(try Self.exampleBlock(in: "docs/push.md") == block, "docs/push.md's example differs from the README's")
        guard
            FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")
                || FileManager.default.isExecutableFile(atPath: "/bin/curl")
        else {
            // Under CI=true a test that cannot run fails.
            if ContinuousIntegration.isRunning { Issue.record("curl is not installed") }
            return
        }
        let push = PushFixture("serve-example")
        let queuePage = try String(
            contentsOfFile: ExecutableRunner.repositoryRoot + "/examples/beer-queue/queue.html", encoding: .utf8)
        let site = try await BeerQueueSite(push, page: queuePage)
        _ = try site.writeConfig(push)
        let port = try Self.freePort()
        let script = block.replacingOccurrences(of: "127.0.0.1:8787", with: "127.0.0.1:\(port)")
        let path = ExecutableRunner.productsDirectory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let directory = push.temp.path
        let result = try await offPool {
            try ExecutableRunner.run("/bin/bash", ["-euo", "pipefail", "-c", script], in: directory, environment: ["PATH": path])
        }
        await site.shutdown()

        #expect(result.status == 0, "\(result)")
        let expected = block.split(separator: "\n").filter { $0.hasPrefix("# {") }.map { String($0.dropFirst(2)) }
        #expect(expected.count == 3, "the example's expected answers: \(expected)")
        // stdout also has serve's own `serving on …` line (it shares the shell's stdout).
        #expect(result.stdout.split(separator: "\n").filter { $0.hasPrefix("{") }.map(String.init) == expected, "\(result)")
        #expect(result.stdout.contains("serving on http://127.0.0.1:\(port)\n"), "\(result)")
        let token = String(repeating: "5e", count: 32)
        #expect(block.contains(token))
        #expect(
            site.apns.received.map { "\($0.token) \($0.event ?? "-") \($0.contentStateType ?? "-")" }
                == ["\(token) start BeerQueueAttributes"], "\(site.apns.received.map(\.problems))")
        #expect(site.apns.received.allSatisfy { $0.problems.isEmpty })
        #expect(
            site.apns.received.first.map { String(decoding: $0.body, as: UTF8.self) }?.contains("Founders KBS (2024)") == true)
        // The example's workspace is ./var: the token is alice-iphone's.
        let registry = try PushStore(workspace: Workspace(root: push.temp.file("var"))).readRegistry()
        #expect(registry.tokens.map { "\($0.token.hex) \($0.device ?? "-")" } == ["\(token) alice-iphone"])
        #expect(!result.stderr.contains(BeerQueueSite.cookie) && !result.stdout.contains(BeerQueueSite.cookie))
    }
}
