import CCurl
import Foundation

/// Fetches `GET <host>/memberQueues.php` with the member's cookie, through libcurl.
///
/// No cookie jar, no cache, a hard timeout. The cookie goes only to the configured origin (scheme,
/// host and port): redirects are followed by hand, and only within that origin — a redirect to
/// another origin, or from https to http, is not followed (the answer is unrecognised,
/// `queueUnavailable`, exit 75). The page limit holds while reading: a `Content-Length` over it
/// stops the transfer before the body, and the body is counted as it arrives; the write callback
/// stops the transfer at the limit, so memory stays bounded by it. (URLSession was not used: it
/// reads ahead of its delegate and queued up to the whole 300 MB answer in memory before a cancel
/// took effect.) Every failure is `BeerQueueError.queueUnavailable`, whose reason never holds the cookie.
public struct BeerQueueClient: Sendable {
    public var host: String
    public var credentials: BeerQueueCredentials
    public var timeoutSeconds: Double
    public var maximumBytes: Int
    /// Redirects followed within the origin (the site sends one to its login page).
    public static let maximumRedirects = 5

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
        // curl_easy_perform blocks: run it off Swift's cooperative threads.
        let result = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: fetch()) }
        }
        switch result {
        case .success(let data): return String(decoding: data, as: UTF8.self)
        case .failure(let problem): throw BeerQueueError.queueUnavailable(host: host, reason: problem.reason)
        }
    }

    struct Problem: Error {
        var reason: String
    }

    func fetch() -> Result<Data, Problem> {
        guard let url = URL(string: pageURL), let origin = Origin(url) else {
            return .failure(Problem(reason: "beerQueue.host is not an http(s) URL"))
        }
        var current = pageURL
        for _ in 0...Self.maximumRedirects {
            let answer: Answer
            switch transfer(current) {
            case .failure(let problem): return .failure(problem)
            case .success(let value): answer = value
            }
            guard (300...399).contains(answer.status) else {
                guard answer.status == 200 else { return .failure(Problem(reason: "HTTP \(answer.status)")) }
                return .success(answer.body)
            }
            guard let location = answer.location, let next = URL(string: location) else {
                return .failure(Problem(reason: "HTTP \(answer.status) without a usable Location"))
            }
            guard let target = Origin(next), target == origin else {
                // Never followed, so the cookie never leaves for another origin or over plain http.
                let name = Origin(next)?.description ?? "a non-http(s) URL"
                return .failure(Problem(reason: "the site redirected to \(name), outside \(origin) (not followed)"))
            }
            current = location
        }
        return .failure(Problem(reason: "more than \(Self.maximumRedirects) redirects"))
    }

    struct Answer {
        var status: Int
        var location: String?
        var body: Data
    }

    /// One GET, no redirects followed, the body capped at `maximumBytes`.
    func transfer(_ url: String) -> Result<Answer, Problem> {
        guard let handle = curl_easy_init() else { return .failure(Problem(reason: "libcurl could not start")) }
        defer { curl_easy_cleanup(handle) }
        var headers: UnsafeMutablePointer<curl_slist>?
        for header in ["Cookie: " + credentials.cookie, "Accept: text/html"] {
            headers = curl_slist_append(headers, header)
        }
        defer { curl_slist_free_all(headers) }
        let sink = BodySink(limit: maximumBytes)
        let context = Unmanaged.passUnretained(sink).toOpaque()
        let milliseconds = max(1, Int(timeoutSeconds * 1000))
        var status = CURLE_OK
        func set(_ code: CURLcode) { if status == CURLE_OK { status = code } }
        set(shelfline_curl_set_string(handle, CURLOPT_URL, url))
        set(shelfline_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
        set(shelfline_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0))
        set(shelfline_curl_set_long(handle, CURLOPT_NOSIGNAL, 1))
        set(shelfline_curl_set_long(handle, CURLOPT_TIMEOUT_MS, milliseconds))
        set(shelfline_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds))
        set(shelfline_curl_set_size(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maximumBytes)))
        set(shelfline_curl_set_string(handle, CURLOPT_USERAGENT, "Shelfline/0.1 (beer-queue poll)"))
        set(shelfline_curl_set_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(headers)))
        set(shelfline_curl_set_write_callback(handle) { data, size, count, context in
            guard let data, let context else { return 0 }
            let sink = Unmanaged<BodySink>.fromOpaque(context).takeUnretainedValue()
            // Returning less than given aborts the transfer (CURLE_WRITE_ERROR).
            return sink.append(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
        })
        set(shelfline_curl_set_pointer(handle, CURLOPT_WRITEDATA, context))
        guard status == CURLE_OK else { return .failure(Problem(reason: "libcurl refused an option (\(status.rawValue))")) }

        let code = curl_easy_perform(handle)
        if sink.overLimit || code == CURLE_FILESIZE_EXCEEDED {
            return .failure(Problem(reason: "the page is larger than \(maximumBytes) bytes"))
        }
        guard code == CURLE_OK else { return .failure(Problem(reason: Self.describe(code))) }
        var responseCode = 0
        _ = shelfline_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &responseCode)
        var location: UnsafeMutablePointer<CChar>?
        _ = shelfline_curl_get_string(handle, CURLINFO_REDIRECT_URL, &location)
        return .success(Answer(status: responseCode, location: location.map { String(cString: $0) }, body: sink.data))
    }

    /// Collects the body up to the limit; past it, refuses (and the transfer stops).
    final class BodySink {
        let limit: Int
        var data = Data()
        var overLimit = false

        init(limit: Int) { self.limit = limit }

        func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
            guard data.count + bytes.count <= limit else {
                overLimit = true
                data = Data()
                return false
            }
            data.append(contentsOf: bytes)
            return true
        }
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

    static func describe(_ code: CURLcode) -> String {
        switch code {
        case CURLE_OPERATION_TIMEDOUT: "timed out"
        case CURLE_COULDNT_CONNECT: "connection refused"
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: "host not found"
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE: "connection lost"
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE:
            "TLS failure"
        case CURLE_WEIRD_SERVER_REPLY: "bad server response"
        default: "network error \(code.rawValue) (\(String(cString: curl_easy_strerror(code))))"
        }
    }
}
