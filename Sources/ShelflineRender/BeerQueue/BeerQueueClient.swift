import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches `GET <host>/memberQueues.php` with the member's cookie.
///
/// No cookie jar, no cache, a hard timeout; every failure is `RenderError.queueUnavailable`
/// whose reason never includes the cookie.
public struct BeerQueueClient: Sendable {
    public var host: String
    public var credentials: BeerQueueCredentials
    public var timeoutSeconds: Double

    public init(host: String, credentials: BeerQueueCredentials, timeoutSeconds: Double = 20) {
        self.host = host.hasSuffix("/") ? String(host.dropLast()) : host
        self.credentials = credentials
        self.timeoutSeconds = timeoutSeconds
    }

    public var pageURL: String { host + "/memberQueues.php" }

    /// The page's HTML (invalid UTF-8 repaired), or `queueUnavailable`.
    public func fetchPage() async throws -> String {
        guard let url = URL(string: pageURL), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
              url.host != nil else {
            throw RenderError.queueUnavailable(host: host, reason: "beerQueue.host is not an http(s) URL")
        }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalAndRemoteCacheData, timeoutInterval: timeoutSeconds)
        request.httpMethod = "GET"
        request.httpShouldHandleCookies = false
        request.setValue(credentials.cookie, forHTTPHeaderField: "Cookie")
        request.setValue("Shelfline/0.1 (beer-queue poll)", forHTTPHeaderField: "User-Agent")
        request.setValue("text/html", forHTTPHeaderField: "Accept")

        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = timeoutSeconds
        configuration.timeoutIntervalForResource = timeoutSeconds
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }

        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch let error as URLError {
            throw RenderError.queueUnavailable(host: host, reason: Self.describe(error))
        } catch {
            throw RenderError.queueUnavailable(host: host, reason: "request failed")
        }
        guard let http = response as? HTTPURLResponse else {
            throw RenderError.queueUnavailable(host: host, reason: "not an HTTP response")
        }
        guard http.statusCode == 200 else {
            throw RenderError.queueUnavailable(host: host, reason: "HTTP \(http.statusCode)")
        }
        guard data.count <= BeerQueuePage.maximumBytes else {
            throw RenderError.queueUnavailable(host: host, reason: "the page is larger than \(BeerQueuePage.maximumBytes) bytes")
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func describe(_ error: URLError) -> String {
        switch error.code {
        case .timedOut: "timed out"
        case .cannotConnectToHost: "connection refused"
        case .cannotFindHost, .dnsLookupFailed: "host not found"
        case .networkConnectionLost: "connection lost"
        case .notConnectedToInternet: "no network"
        case .badServerResponse: "bad server response"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate: "TLS failure"
        case .httpTooManyRedirects: "too many redirects"
        default: "network error \(error.code.rawValue)"
        }
    }
}
