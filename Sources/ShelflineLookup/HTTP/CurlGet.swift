import CCurl
import Foundation

/// One HTTP GET over libcurl, blocking its thread: the body is taken in as it arrives and refused
/// past `limit` bytes, which stops the transfer there (URLSession handed the body to its delegate
/// on a queue that fell behind a fast server: a 1 GiB answer reached 230-975 MB of memory before
/// the cut-off took effect). `cancel()` stops it from another thread within a progress tick.
final class CurlGet: @unchecked Sendable {
    enum Failure: Error {
        case tooLarge
        case cancelled
        case timedOut
        case nameResolution
        case refused
        case other(String)
    }

    private let url: String
    private let headers: [String]
    private let timeoutMilliseconds: Int
    private let limit: Int
    private let lock = NSLock()
    private var stopped = false
    private var body = Data()
    private var overLimit = false

    init(url: String, headers: [String], timeoutSeconds: Double, limit: Int) {
        self.url = url
        self.headers = headers
        timeoutMilliseconds = max(1, Int(timeoutSeconds * 1000))
        self.limit = limit
    }

    func cancel() { lock.withLock { stopped = true } }

    private var isStopped: Bool { lock.withLock { stopped } }

    /// Runs the transfer: the status and body, or why there is none.
    func run() -> Result<(status: Int, body: Data), Failure> {
        if isStopped { return .failure(.cancelled) }
        guard let handle = curl_easy_init() else { return .failure(.other("libcurl could not start")) }
        defer { curl_easy_cleanup(handle) }
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers { list = curl_slist_append(list, header) }
        defer { curl_slist_free_all(list) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        var status = CURLE_OK
        func set(_ code: CURLcode) { if status == CURLE_OK { status = code } }
        set(shelfline_curl_set_string(handle, CURLOPT_URL, url))
        set(shelfline_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
        set(shelfline_curl_set_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"))
        set(shelfline_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 1))
        set(shelfline_curl_set_long(handle, CURLOPT_MAXREDIRS, 5))
        set(shelfline_curl_set_long(handle, CURLOPT_NOSIGNAL, 1))
        set(shelfline_curl_set_long(handle, CURLOPT_TIMEOUT_MS, timeoutMilliseconds))
        set(shelfline_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT_MS, timeoutMilliseconds))
        // A `Content-Length` over the limit fails before the body (CURLE_FILESIZE_EXCEEDED).
        set(shelfline_curl_set_size(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limit)))
        set(shelfline_curl_set_string(handle, CURLOPT_ACCEPT_ENCODING, ""))
        set(shelfline_curl_set_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(list)))
        set(shelfline_curl_set_write_callback(handle) { data, size, count, context in
            guard let data, let context else { return 0 }
            let get = Unmanaged<CurlGet>.fromOpaque(context).takeUnretainedValue()
            // Returning less than given aborts the transfer (CURLE_WRITE_ERROR).
            return get.take(UnsafeRawBufferPointer(start: data, count: size * count)) ? size * count : 0
        })
        set(shelfline_curl_set_pointer(handle, CURLOPT_WRITEDATA, context))
        set(shelfline_curl_set_long(handle, CURLOPT_NOPROGRESS, 0))
        set(shelfline_curl_set_xferinfo_callback(handle) { context, _, _, _, _ in
            guard let context else { return 0 }
            return Unmanaged<CurlGet>.fromOpaque(context).takeUnretainedValue().isStopped ? 1 : 0
        })
        set(shelfline_curl_set_pointer(handle, CURLOPT_XFERINFODATA, context))
        guard status == CURLE_OK else { return .failure(.other("libcurl refused an option (\(status.rawValue))")) }

        let code = curl_easy_perform(handle)
        if overLimit || code == CURLE_FILESIZE_EXCEEDED { return .failure(.tooLarge) }
        switch code {
        case CURLE_OK:
            var responseCode = 0
            _ = shelfline_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &responseCode)
            return .success((responseCode, body))
        case CURLE_ABORTED_BY_CALLBACK: return .failure(.cancelled)
        case CURLE_OPERATION_TIMEDOUT: return .failure(.timedOut)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return .failure(.nameResolution)
        case CURLE_COULDNT_CONNECT: return .failure(.refused)
        default: return .failure(.other("\(String(cString: curl_easy_strerror(code))) (curl \(code.rawValue))"))
        }
    }

    private func take(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= limit else {
            overLimit = true
            body = Data()
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }
}
