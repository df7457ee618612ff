import Foundation
import TestSupport

/// `fake-openlibrary PORT_FILE [--latency SECONDS] [--rate N]`: the tests' Open Library stand-in
/// (`FakeOpenLibraryServer`) as a process, for `bench/lookup`. Answers every ISBN, waits LATENCY
/// seconds per answer, answers 429 beyond N requests in the last second; `GET /stats` gives counts.
/// Writes its port to PORT_FILE and serves until it is killed.
let arguments = Array(CommandLine.arguments.dropFirst())
guard let portFile = arguments.first, !portFile.hasPrefix("-") else {
    FileHandle.standardError.write(Data("usage: fake-openlibrary PORT_FILE [--latency SECONDS] [--rate N]\n".utf8))
    exit(64)
}
func value(_ flag: String) -> Double? {
    arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? Double(arguments[$0 + 1]) : nil }
}
let server = try await FakeOpenLibraryServer(everyISBN: true, rateLimit: value("--rate").map { Int($0) })
server.latency = value("--latency").map { .milliseconds(Int64($0 * 1000)) }
try String(server.port).write(toFile: portFile, atomically: true, encoding: .utf8)
while true { try await Task.sleep(for: .seconds(3600)) }
