import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches `GET <host>/memberQueues.php` with the member's cookie.
///
/// No cookie jar, no cache, a hard timeout. The cookie goes only to the configured origin (scheme,
/// host and port): a redirect to another origin, or from https to http, is not followed — the
/// answer is unrecognised (`queueUnavailable`, exit 75). The body is counted while it streams in
/// and the transfer is cancelled once it passes `maximumBytes` (or when `Content-Length` says it
/// will), so memory stays bounded by the limit. Every failure is `BeerQueueError.queueUnavailable`.
public struct BeerQueueClient: Sendable {
    public var host: String
    public var credentials: BeerQueueCredentials
    public var timeoutSeconds: Double
    public var maximumBytes: Int

    public init(host: String, credentials: BeerQueueCredentials, timeoutSeconds: Double = 20,
                maximumBytes: Int = BeerQueuePage.maximumBytes) {
        self.host = host.hasSuffix("/") ? String(host.dropLast()) : host
        self.credentials = credentials
        self.timeoutSeconds = timeoutSeconds
        self.maximumBytes = maximumBytes
    }

    public var pageURL: String { host + "/memberQueues.php" }

    /// The page's HTML (invalid UTF-8 repaired), or `queueUnavailable`.
    public func fetchPage() async throws -> String {
        guard let url = URL(string: pageURL), let origin = Origin(url) else {
            throw BeerQueueError.queueUnavailable(host: host, reason: "beerQueue.host is not an http(s) URL")
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
        let transfer = Transfer(origin: origin, cookie: credentials.cookie, maximumBytes: maximumBytes)
        let session = URLSession(configuration: configuration, delegate: transfer, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }

        let result = await withCheckedContinuation { continuation in
            transfer.start(session.dataTask(with: request), continuation: continuation)
        }
        let data: Data
        switch result {
        case .failure(let problem):
            throw BeerQueueError.queueUnavailable(host: host, reason: problem.reason)
        case .success(let response, let body):
            guard response.statusCode == 200 else {
                throw BeerQueueError.queueUnavailable(host: host, reason: "HTTP \(response.statusCode)")
            }
            data = body
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// Scheme, host and port: the only place the cookie may go.
    struct Origin: Equatable, CustomStringConvertible {
        var scheme: String
        var host: String
        var port: Int

        init?(_ url: URL) {
            guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
                  let host = url.host?.lowercased(), !host.isEmpty else { return nil }
            self.scheme = scheme
            self.host = host
            port = url.port ?? (scheme == "https" ? 443 : 80)
        }

        var description: String { "\(scheme)://\(host):\(port)" }
    }

    struct Problem: Error {
        var reason: String
    }

    enum Result {
        case success(HTTPURLResponse, Data)
        case failure(Problem)
    }

    /// The delegate of one transfer: vets redirects, counts the body, resumes the caller once.
    final class Transfer: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        let origin: Origin
        let cookie: String
        let maximumBytes: Int
        private let lock = NSLock()
        private var body = Data()
        private var problem: Problem?
        private var continuation: CheckedContinuation<Result, Never>?

        init(origin: Origin, cookie: String, maximumBytes: Int) {
            self.origin = origin
            self.cookie = cookie
            self.maximumBytes = maximumBytes
        }

        func start(_ task: URLSessionDataTask, continuation: CheckedContinuation<Result, Never>) {
            lock.withLock { self.continuation = continuation }
            task.resume()
        }

        private func fail(_ reason: String, _ task: URLSessionTask) {
            lock.withLock { if problem == nil { problem = Problem(reason: reason) } }
            task.cancel()
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
            guard let url = request.url, let target = Origin(url), target == origin else {
                // Not followed, so the cookie never leaves for another origin or over plain http.
                // Declining ends the task with the 3xx answer itself; cancelling here as well would
                // make FoundationNetworking trap on the redirect callback.
                let target = request.url.flatMap(Origin.init).map(\.description) ?? "a non-http(s) URL"
                lock.withLock { if problem == nil { problem = Problem(reason: "the site redirected to \(target), outside \(origin) (not followed)") } }
                completionHandler(nil)
                return
            }
            var request = request
            request.setValue(cookie, forHTTPHeaderField: "Cookie")
            completionHandler(request)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
            if response.expectedContentLength > Int64(maximumBytes) {
                fail("the page is larger than \(maximumBytes) bytes (Content-Length \(response.expectedContentLength))", dataTask)
                completionHandler(.cancel)
                return
            }
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let over = lock.withLock { () -> Bool in
                guard problem == nil else { return false }
                guard body.count + data.count <= maximumBytes else { return true }
                body.append(data)
                return false
            }
            if over {
                lock.withLock { body = Data() }
                fail("the page is larger than \(maximumBytes) bytes", dataTask)
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            let (continuation, result) = lock.withLock { () -> (CheckedContinuation<Result, Never>?, Result) in
                let continuation = self.continuation
                self.continuation = nil
                if let problem { return (continuation, .failure(problem)) }
                if let error = error as? URLError { return (continuation, .failure(Problem(reason: BeerQueueClient.describe(error)))) }
                if error != nil { return (continuation, .failure(Problem(reason: "request failed"))) }
                guard let http = task.response as? HTTPURLResponse else {
                    return (continuation, .failure(Problem(reason: "not an HTTP response")))
                }
                return (continuation, .success(http, body))
            }
            continuation?.resume(returning: result)
        }
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
