import Foundation

/// Starts a server on a port that was free a moment ago, trying again until the bind holds.
///
/// A test that restarts a server "on the same port" (a restarting Open Library, APNs back after an
/// outage) cannot reserve the port meanwhile: in the parallel suite another test's outgoing
/// connection can take it as its own ephemeral port for a moment ("Address already in use",
/// errno 98). The backstop only ends a test that would otherwise wait forever.
public func bindingAgain<Server>(backstop seconds: Double = 120, _ start: () async throws -> Server) async throws -> Server {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
        do {
            return try await start()
        } catch {
            guard Date() < deadline else { throw error }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
