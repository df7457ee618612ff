import Foundation
import ShelflineCore
import Testing

@testable import ShelflineBeerQueue

/// 10.5 and 15 minor: where the cookie may go. The end-to-end tests redirect between loopback
/// servers; https cannot be served here, so the scheme rule is pinned on the origin itself.
@Suite struct BeerQueueOriginTests {
    static func origin(_ url: String) -> BeerQueueClient.Origin? { BeerQueueClient.Origin(URL(string: url)!) }

    @Test(
        .bug(id: 10),
        arguments: [
            ("https://www.beerknurd.com", "https://www.beerknurd.com:443/login.php", true),
            ("https://www.beerknurd.com", "https://WWW.BeerKnurd.com/x", true),
            ("https://www.beerknurd.com", "http://www.beerknurd.com/memberQueues.php", false),  // https → http
            ("https://www.beerknurd.com", "https://www.beerknurd.com:8443/", false),
            ("https://www.beerknurd.com", "https://evil.example/memberQueues.php", false),
            ("https://www.beerknurd.com", "https://beerknurd.com/", false),
            ("http://127.0.0.1:8080", "http://localhost:8080/", false),
        ])
    func cookieOnlyToTheSameOrigin(_ configured: String, _ redirect: String, _ same: Bool) {
        #expect((Self.origin(configured) == Self.origin(redirect)) == same)
    }

    @Test(.bug(id: 10)) func nonHTTPRedirectIsNoOrigin() {
        #expect(Self.origin("ftp://127.0.0.1/memberQueues.php") == nil)
        #expect(Self.origin("file:///etc/passwd") == nil)
    }

    @Test(
        .bug(id: 15),
        arguments: [
            ("127.0.0.1", true), ("127.1.2.3", true), ("localhost", true), ("[::1]", true), ("::1", true),
            ("10.0.0.1", false), ("www.beerknurd.com", false), ("127.0.0.1.example.com", false), ("128.0.0.1", false),
        ])
    func plainHttpOnlyForLoopback(_ host: String, _ loopback: Bool) {
        #expect(Loopback.isLoopback(host) == loopback)
    }

    /// The page is `<host>/memberQueues.php` whether or not `beerQueue.host` ends with a slash.
    @Test(arguments: ["https://www.beerknurd.com", "https://www.beerknurd.com/"])
    func thePageIsUnderTheHostWithOrWithoutItsSlash(_ host: String) throws {
        let job = BeerQueueJob(
            config: .object(["host": .string(host)]), configPath: "pipeline.json", workspace: Workspace(root: "/nonexistent"))
        let client = BeerQueueClient(
            host: try job.validatedHost(), credentials: BeerQueueCredentials(cookie: "PHPSESSID=x"), timeoutSeconds: 1)
        #expect(client.pageURL == "https://www.beerknurd.com/memberQueues.php")
    }
}
