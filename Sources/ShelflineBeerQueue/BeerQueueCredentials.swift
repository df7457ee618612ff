import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// The member's session cookie, from a file only its owner may read: one `Cookie` header line
/// (a bare value means `PHPSESSID=<value>`) or JSON `{"cookie": "…"}`. Never logged or printed.
public struct BeerQueueCredentials: Sendable, CustomStringConvertible {
    /// The `Cookie` header value.
    public let cookie: String

    public var description: String { "BeerQueueCredentials(cookie: <redacted>)" }

    /// Refuses a file that group or others may access, or that another user owns.
    public static func load(path: String) throws -> BeerQueueCredentials {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw FileError.missingInput(path: path, reason: "credentials file: \(systemErrorMessage())")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw BeerQueueError.invalidCredentials(path: path, reason: "credentials file is not a regular file")
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw BeerQueueError.insecureCredentials(path: path, mode: String(format: "%04o", mode))
        }
        guard info.st_uid == getuid() else {
            throw BeerQueueError.invalidCredentials(
                path: path, reason: "credentials file is owned by another user (uid \(info.st_uid))")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FileError.missingInput(path: path, reason: "credentials file is not readable")
        }
        return BeerQueueCredentials(cookie: try cookie(from: String(decoding: data, as: UTF8.self), path: path))
    }

    static func cookie(from text: String, path: String) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        var value: String
        if trimmed.hasPrefix("{") {
            guard let object = try? JSONDecoder().decode(JSONValue.self, from: Data(trimmed.utf8)),
                case .string(let cookie)? = object["cookie"] ?? object["PHPSESSID"] ?? object["sessionId"]
            else {
                throw BeerQueueError.invalidCredentials(path: path, reason: "credentials JSON has no string 'cookie'")
            }
            value = object["cookie"] != nil ? cookie : "PHPSESSID=" + cookie
        } else {
            let line =
                trimmed.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
                .first { !$0.isEmpty && !$0.hasPrefix("#") } ?? ""
            value = line
            if value.lowercased().hasPrefix("cookie:") { value = String(value.dropFirst(7)).trimmingCharacters(in: .whitespaces) }
        }
        guard !value.isEmpty else {
            throw BeerQueueError.invalidCredentials(path: path, reason: "credentials file holds no cookie")
        }
        guard value.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) else {
            throw BeerQueueError.invalidCredentials(path: path, reason: "the cookie may only hold printable ASCII")
        }
        return value.contains("=") ? value : "PHPSESSID=" + value
    }
}
