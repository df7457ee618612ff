import Foundation
import ShelflineHTTP

/// Fetches `<host>/memberQueues.php` with the member's cookie through `HTTPGet`, which stops at the
/// page limit (URLSession reads ahead of its delegate). No cookie jar, no cache, a hard timeout; the
/// cookie goes only to the configured origin (a redirect elsewhere is not followed). Every failure
/// is `queueUnavailable`, whose reason never holds the cookie.
public struct BeerQueueClient: Sendable {
    /// Without a trailing slash (`BeerQueueJob.validatedHost`).
    public var host: String
    public var credentials: BeerQueueCredentials
    public var timeoutSeconds: Double
    public var maximumBytes = BeerQueuePage.maximumBytes
    /// Within the origin (the site redirects to its login page).
    public static let maximumRedirects = 5

    public var pageURL: String { host + "/memberQueues.php" }

    /// Invalid UTF-8 is repaired.
    public func fetchPage() async throws -> String {
        func unavailable(_ reason: String) -> BeerQueueError { .queueUnavailable(host: host, reason: reason) }
        guard let url = URL(string: pageURL), let origin = Origin(url) else {
            throw unavailable("beerQueue.host is not an http(s) URL")
        }
        let get = HTTPGet(
            url: url,
            headers: [
                ("Cookie", credentials.cookie), ("Accept", "text/html"), ("User-Agent", "Shelfline/0.1 (beer-queue poll)"),
            ],
            timeoutSeconds: timeoutSeconds, limit: maximumBytes,
            // The cookie never leaves for another origin or over plain http.
            redirects: HTTPGet.RedirectRule(maximum: Self.maximumRedirects) { Origin($0) == origin })
        switch await get.run() {
        case .success(let answer):
            guard answer.status == 200 else { throw unavailable("HTTP \(answer.status)") }
            return String(decoding: answer.body, as: UTF8.self)
        case .failure(let failure):
            throw unavailable(describe(failure, origin: origin))
        }
    }

    /// Scheme, host and port: the only place the cookie may go.
    struct Origin: Equatable, CustomStringConvertible {
        var scheme: String
        var host: String
        var port: Int

        init?(_ url: URL) {
            guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
                let host = url.host?.lowercased(), !host.isEmpty
            else { return nil }
            self.scheme = scheme
            self.host = host
            port = url.port ?? (scheme == "https" ? 443 : 80)
        }

        var description: String { "\(scheme)://\(host):\(port)" }
    }

    /// Never the cookie: requests' headers are not part of any failure.
    func describe(_ failure: HTTPGet.Failure, origin: Origin) -> String {
        switch failure {
        case .tooLarge: "the page is larger than \(maximumBytes) bytes"
        case .timedOut: "timed out"
        case .cancelled: "cancelled"
        case .nameResolution: "host not found"
        case .unreachable(let reason): reason
        case .redirectRefused(nil): "a redirect without a usable Location"
        case .redirectRefused(let target?):
            "the site redirected to \(Origin(target)?.description ?? "a non-http(s) URL"), outside \(origin) (not followed)"
        case .tooManyRedirects: "more than \(Self.maximumRedirects) redirects"
        case .other(let reason): reason
        }
    }
}
