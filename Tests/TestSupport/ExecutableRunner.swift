import Foundation

/// The result of running a built executable: what end-to-end tests assert on.
public struct ProcessResult: Sendable, CustomStringConvertible {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// True when the process was killed by a signal (then `status` is the signal number).
    public var signaled: Bool

    public var description: String {
        "exit \(signaled ? "signal " : "")\(status)\n--- stdout ---\n\(stdout)\n--- stderr ---\n\(stderr)"
    }
}

/// Runs the executables `swift build` put beside the test bundle.
public enum ExecutableRunner {
    /// The build products directory (where `shelfline-parse` etc. live).
    public static var productsDirectory: String {
        if let explicit = ProcessInfo.processInfo.environment["SHELFLINE_BIN"] { return explicit }
        // The test binary sits in the products directory (…/debug/ShelflinePackageTests.xctest):
        // `swift test` runs it as an executable (its directory) or loads it as a bundle (its parent).
        var candidates = [URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().path]
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().path)
        }
        candidates += [Bundle.main.bundleURL.path, Bundle.main.bundleURL.deletingLastPathComponent().path]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0 + "/shelfline-parse") } ?? candidates[0]
    }

    /// Path of a built executable.
    public static func path(_ name: String) -> String { productsDirectory + "/" + name }

    /// The repository root (for `examples/`, `pipeline.json` and `../shared/corpus`).
    public static var repositoryRoot: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }

    /// Runs `name` (a built executable, or an absolute path) with `arguments` in `directory`, waits,
    /// and collects output.
    public static func run(
        _ name: String, _ arguments: [String], in directory: String? = nil,
        environment: [String: String] = [:], stdin: String? = nil
    ) throws -> ProcessResult {
        let process = start(name, arguments, in: directory, environment: environment)
        let outPipe = Pipe(), errPipe = Pipe(), inPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = inPipe
        try process.run()
        if let stdin { inPipe.fileHandleForWriting.write(Data(stdin.utf8)) }
        try? inPipe.fileHandleForWriting.close()
        // Read both pipes concurrently so neither fills up and blocks the child.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.blockingWork().async {
            errData = errPipe.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = outPipe.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return ProcessResult(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self),
            signaled: process.terminationReason == .uncaughtSignal)
    }

    /// A configured, not yet started process (for tests that signal or kill it).
    public static func start(
        _ name: String, _ arguments: [String], in directory: String? = nil,
        environment: [String: String] = [:]
    ) -> Process {
        let process = Process()
        // An absolute name is a program outside the build (e.g. `/bin/sh` wrapping one of ours).
        process.executableURL = URL(fileURLWithPath: name.hasPrefix("/") ? name : path(name))
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "SHELFLINE_CONFIG")
        env.removeValue(forKey: "SHELFLINE_WORKSPACE")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        return process
    }
}
