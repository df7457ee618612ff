import APNsTestServer
import Foundation
import ShelflineActivity
import ShelflineCore
import ShelflinePush
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

// `make bench` part for issue 11: `shelfline-push send` (a child process) delivering one snapshot
// to N registered tokens through the loopback APNs (HTTP/2 over TLS, one connection, concurrent
// streams; this process serves it). Prints pushes/s and the sender's peak RSS.
// Usage: shelfline-push-bench BIN_DIR [TOKENS] [CONCURRENCY]

let arguments = CommandLine.arguments

// `shelfline-push-bench serve DIR`: a loopback APNs for bench/push/import.sh (issue 26). Writes the
// signing key (DIR/AuthKey.p8), the server's certificate (DIR/ca.pem) and the `apns` section
// (DIR/apns.json), prints `ready`, serves until stdin closes, then prints what it received.
if arguments.count == 3 && arguments[1] == "serve" {
    let directory = arguments[2]
    let key = P256SigningKey.generate()
    let keyFile = directory + "/AuthKey.p8"
    try AtomicFile.write(key.pemRepresentation, to: keyFile, permissions: 0o600)
    let expectations = APNsTestServer.Expectations(
        publicPoint: key.publicPoint, keyId: "ABC123DEFG", teamId: "TEAM123456",
        bundleId: "com.example.shelfline")
    let server = try await APNsTestServer(expecting: expectations, threads: 1) { _ in .ok }
    try AtomicFile.write(server.certificatePEM, to: directory + "/ca.pem")
    let apns = APNsConfig(
        environment: "sandbox", host: server.host, keyFile: keyFile, keyId: expectations.keyId,
        teamId: expectations.teamId, bundleId: expectations.bundleId, caFile: directory + "/ca.pem")
    try writeJSONFile(apns, to: directory + "/apns.json")
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    _ = FileHandle.standardInput.readDataToEndOfFile()
    let received = server.received
    let events = Dictionary(grouping: received, by: { $0.event ?? "?" }).mapValues(\.count).sorted { $0.key < $1.key }
    print(
        "received \(received.count) pushes (\(events.map { "\($0.key) \($0.value)" }.joined(separator: ", "))), "
            + "\(received.filter { !$0.problems.isEmpty }.count) failing the checks, over \(server.connections) connection(s)")
    try await server.shutdown()
    exit(0)
}

guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: shelfline-push-bench BIN_DIR [TOKENS] [CONCURRENCY]\n".utf8))
    exit(64)
}
let binDirectory = arguments[1]
let tokenCount = arguments.count > 2 ? Int(arguments[2]) ?? 5000 : 5000
let concurrency = arguments.count > 3 ? Int(arguments[3]) ?? 100 : 100

let temp = TemporaryDirectory("push-bench")
let workspace = Workspace(root: temp.file("ws"))
let key = P256SigningKey.generate()
let keyFile = temp.write("AuthKey.p8", key.pemRepresentation)
chmod(keyFile, 0o600)
let expectations = APNsTestServer.Expectations(
    publicPoint: key.publicPoint, keyId: "ABC123DEFG", teamId: "TEAM123456",
    bundleId: "com.example.shelfline")
let server = try await APNsTestServer(expecting: expectations, threads: 1) { _ in .ok }
let caFile = temp.write("ca.pem", server.certificatePEM)

var config = PipelineConfig(stages: [])
config.apns = try JSONValue(
    encoding: APNsConfig(
        environment: "sandbox", host: server.host, keyFile: keyFile, keyId: expectations.keyId,
        teamId: expectations.teamId, bundleId: expectations.bundleId, caFile: caFile,
        concurrency: concurrency))
let configPath = temp.write("pipeline.json", String(decoding: try JSONEncoder.shelflinePretty.encode(config), as: UTF8.self))

// N update tokens (registered directly: one registry write), one beer-queue snapshot for them.
let registrations = (0..<tokenCount).map { index in
    Registration(
        token: try! DeviceToken(String(format: "%064x", index + 1)), activity: .beerQueue, kind: .update, registeredAt: 0)
}
try PushStore(workspace: workspace).write(Registry(tokens: registrations))
let beers = (1...5).map { QueuedBeer(id: "\($0)", name: "Beer \($0)", date: "Apr 08, 2025 @ 03:10:18pm") }
let state = BeerQueueAttributes.ContentState(queueCount: 5, beers: beers, storeLocation: "Flying Saucer", lastUpdated: "now")
try ActivityStore(workspace: workspace, name: "beer-queue").publish(
    ActivitySnapshot(
        attributesType: BeerQueueAttributes.typeName, attributes: BeerQueueAttributes(memberId: "1", storeId: "2"),
        contentState: state, event: .update, timestamp: Int(Date().timeIntervalSince1970), staleDate: nil, dismissalDate: nil,
        alert: nil))

let process = Process()
process.executableURL = URL(fileURLWithPath: binDirectory + "/shelfline-push")
process.arguments = ["send", "--workspace", workspace.root, "--config", configPath, "--quiet"]
process.standardError = FileHandle.nullDevice
let started = DispatchTime.now()
try process.run()
process.waitUntilExit()
let seconds = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
var usage = rusage()
getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)

let received = server.received
let bad = received.filter { !$0.problems.isEmpty }.count
let report = try readJSONFile(PushReport.self, from: PushStore(workspace: workspace).reportPath)
print("shelfline-push send: \(tokenCount) tokens, concurrency \(concurrency), exit \(process.terminationStatus)")
print(
    "  delivered \(report.delivered) of \(report.pushes) (\(received.count) received over \(server.connections) connection(s), \(bad) failing the server's checks)"
)
print(
    String(
        format: "  %.2f s including process start: %.0f pushes/s (target ≥ 1,000)", seconds, Double(report.delivered) / seconds))
print(String(format: "  sender peak RSS %.1f MiB", Double(usage.ru_maxrss) / 1024))
try await server.shutdown()
exit(process.terminationStatus == 0 && bad == 0 ? 0 : 1)
