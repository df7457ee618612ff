import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// The checks every HTTP source applies to its settings, so that a new one cannot be laxer than
/// Open Library.
enum SourceEndpoint {
    /// Without a trailing slash; `https://` unless the host is a loopback address.
    static func baseURL(_ text: String, source: String, section: String, configPath: String) throws -> URL {
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw LookupError.config("source '\(source)': base URL '\(text)' is not an http(s) URL")
        }
        guard scheme == "https" || Loopback.isLoopback(host) else {
            throw LookupError.invalidParameter(
                configPath: configPath, key: "\(section).baseURL",
                expected: "https:// (plain http:// is allowed only for a loopback address), found '\(text)'")
        }
        return url
    }

    /// `http://` is upgraded (a page served over https may not load it); anything but http(s) is nil.
    static func coverURL(_ text: String?) -> String? {
        guard let text, var components = URLComponents(string: text), let host = components.host, !host.isEmpty else {
            return nil
        }
        switch components.scheme?.lowercased() {
        case "https": return text
        case "http":
            components.scheme = "https"
            return components.string
        default: return nil
        }
    }

    /// `url` with `query`, in order, leaving out the pairs whose value is nil.
    static func url(_ url: URL, query: [(String, String?)]) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        let items = query.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        components.queryItems = items.isEmpty ? nil : items
        return components.url!
    }

    /// An id fit to be one path component.
    static func isPlainID(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.count <= 64
            && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    /// The most a key file is read: API keys are a few dozen characters.
    static let keyFileLimit = 4096

    /// The first non-empty line of a regular file that group and others cannot read. The key never
    /// appears in an error.
    static func apiKey(path: String, key: String, configPath: String) throws -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw FileError.missingInput(path: path, reason: "\(systemErrorMessage()) (\(key))")
        }
        guard info.st_mode & S_IFMT == S_IFREG, info.st_size <= keyFileLimit else {
            throw LookupError.invalidParameter(
                configPath: configPath, key: key,
                expected: "a regular file of at most \(keyFileLimit) bytes holding the key, found '\(path)'")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw LookupError.invalidParameter(
                configPath: configPath, key: key,
                expected:
                    "\(path) is mode \(String(format: "%04o", mode)); a key file must be readable by its owner only: chmod 600 \(path)"
            )
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FileError.missingInput(path: path, reason: "cannot read (\(key))")
        }
        let line = String(decoding: data.prefix(keyFileLimit), as: UTF8.self).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty && !$0.hasPrefix("#") }
        guard let line, line.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
            throw LookupError.invalidParameter(
                configPath: configPath, key: key,
                expected: "\(path) holds no key (one line of printable ASCII)")
        }
        return line
    }
}
