import Foundation
import TestSupport
import TestTraits
import Testing

/// Issue 13: the Makefile a newcomer meets first — `make` alone, the dependency check, install.
@Suite(.offCooperativePool) struct MakefileEndToEndTests {
    /// Runs `make -s arguments` in the repository, collecting its output.
    func make(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let dir = TemporaryDirectory("make-output")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/make")
        process.arguments = ["-s", "-C", ExecutableRunner.repositoryRoot] + arguments
        let out = dir.file("out"), err = dir.file("err")
        FileManager.default.createFile(atPath: out, contents: nil)
        FileManager.default.createFile(atPath: err, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
        try process.run()
        process.waitUntilExit()
        return (
            process.terminationStatus, try String(contentsOfFile: out, encoding: .utf8),
            try String(contentsOfFile: err, encoding: .utf8)
        )
    }

    @Test(.bug(id: 13)) func makeWithoutTargetPrintsWhatToRunFirst() throws {
        let result = try make([])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("make import CSV=examples/goodreads_library_export.csv"), "\(result)")
        #expect(result.stdout.contains("make test"), "\(result)")
    }

    @Test(.bug(id: 13)) func missingHeadersNameThePackageAndTheInstallCommand() throws {
        let empty = TemporaryDirectory("no-headers")
        let result = try make(["check-deps", "INCLUDE_DIRS=\(empty.path)"])
        #expect(result.status != 0, "\(result)")
        for package in ["zlib1g-dev", "libdeflate-dev", "libsqlite3-dev"] {
            #expect(result.stderr.contains(package), "\(result)")
        }
        #expect(result.stderr.contains("sudo apt-get update && sudo apt-get install"), "\(result)")
        // With the headers where the build finds them, the check passes silently.
        let present = try make(["check-deps"])
        #expect(present.status == 0 && present.stderr.isEmpty, "\(present)")
    }

    @Test(.bug(id: 13)) func installAndUninstallExecutablesAndCompletions() throws {
        let prefix = TemporaryDirectory("prefix")
        let common = ["NO_BUILD=1", "BIN=\(ExecutableRunner.productsDirectory)", "PREFIX=\(prefix.path)"]
        let install = try make(["install"] + common)
        #expect(install.status == 0, "\(install)")
        let executables = [
            "shelfline", "shelfline-parse", "shelfline-dedupe", "shelfline-lookup", "shelfline-merge", "shelfline-render",
            "shelfline-push",
        ]
        for name in executables {
            #expect(FileManager.default.isExecutableFile(atPath: prefix.file("bin/\(name)")), "\(name)")
            for script in [
                "share/bash-completion/completions/\(name)", "share/zsh/site-functions/_\(name)",
                "share/fish/vendor_completions.d/\(name).fish",
            ] {
                let text = (try? String(contentsOfFile: prefix.file(script), encoding: .utf8)) ?? ""
                #expect(text.contains(name), "\(script) is missing or empty")
            }
        }
        let installed = Process()
        installed.executableURL = URL(fileURLWithPath: prefix.file("bin/shelfline"))
        installed.arguments = ["--version"]
        installed.standardOutput = FileHandle.nullDevice
        try installed.run()
        installed.waitUntilExit()
        #expect(installed.terminationStatus == 0, "the installed shelfline does not run")
        let uninstall = try make(["uninstall"] + common)
        #expect(uninstall.status == 0, "\(uninstall)")
        let left =
            FileManager.default.enumerator(atPath: prefix.path)?.compactMap { $0 as? String }
            .filter { path in executables.contains { path.hasSuffix($0) || path.hasSuffix($0 + ".fish") } } ?? []
        #expect(left.isEmpty, "left behind: \(left)")
    }
}
