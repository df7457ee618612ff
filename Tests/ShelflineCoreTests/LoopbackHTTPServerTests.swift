import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct LoopbackHTTPServerTests {
    @Test func servesAndRecordsRequests() async throws {
        let server = try await LoopbackHTTPServer { request in
            .json("{\"path\":\"\(request.path)\",\"q\":\"\(request.query["q"] ?? "")\"}")
        }
        let url = URL(string: server.baseURL + "/search.json?q=le%20guin")!
        let (data, response) = try await URLSession.shared.data(from: url)
        try await server.shutdown()
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        #expect(String(decoding: data, as: UTF8.self) == "{\"path\":\"/search.json\",\"q\":\"le guin\"}")
        #expect(server.requests.map(\.path) == ["/search.json"])
    }

    @Test func droppedConnectionIsAnErrorForTheClient() async throws {
        let server = try await LoopbackHTTPServer { _ in .drop }
        await #expect(throws: (any Error).self) {
            _ = try await URLSession.shared.data(from: URL(string: server.baseURL + "/x")!)
        }
        try await server.shutdown()
    }
}
