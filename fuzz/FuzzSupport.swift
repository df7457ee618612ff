import Foundation
import ShelflineCore

// Shared by every fuzz target (each target is one file with `LLVMFuzzerTestOneInput`, compiled
// with this file against the fuzzer-instrumented modules: see fuzz/run.sh and fuzz/README.md).

/// A broken invariant: print it and abort, so libFuzzer saves the input as a crash.
func fuzzFail(_ message: String, _ input: [UInt8]) -> Never {
    FileHandle.standardError.write(Data("INVARIANT BROKEN: \(message)\ninput (\(input.count) bytes)\n".utf8))
    abort()
}

/// A private directory for the files a target writes, on tmpfs when there is one.
let fuzzScratch: String = {
    let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
    let path = base + "/shelfline-fuzz-\(getpid())"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: "/dev/shm/shelfline-fuzz-\(getpid())") }
    return path
}()

/// Writes `bytes` to `name` in the scratch directory and returns its path.
func scratchFile(_ name: String, _ bytes: some Collection<UInt8>) -> String {
    let path = fuzzScratch + "/" + name
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { fatalError("cannot write \(path)") }
    return path
}

/// True when `bytes` is one valid JSON value.
func isValidJSON(_ bytes: some Collection<UInt8>) -> Bool {
    (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) != nil
}

/// Every error a stage may throw is a `ShelflineError` with a documented status and a one-line message.
func checkError(_ error: any Error, allowed: Set<ExitStatus>, _ input: [UInt8]) {
    guard let error = error as? any ShelflineError else { fuzzFail("not a ShelflineError: \(error)", input) }
    guard allowed.contains(error.exitStatus) else { fuzzFail("exit \(error.exitStatus.rawValue): \(error)", input) }
    let message = "\(error)"
    if message.isEmpty || message.contains("\n") { fuzzFail("message not one line: \(message)", input) }
}
