import Foundation
import ShelflineActivity
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// `pipeline.json`'s `apns` section, checked and resolved: what a sender needs.
public struct PushSettings: Sendable {
    public static let sandboxHost = "https://api.sandbox.push.apple.com"
    public static let productionHost = "https://api.push.apple.com"

    /// No trailing slash.
    public var host: String
    public var keyFile: String
    public var keyId: String
    public var teamId: String
    public var bundleId: String
    public var caFile: String?
    public var waitBudget: Double
    public var concurrency: Int
    public var timeout: Double
    public var minimumUpdateInterval: Double
    public var maxUrgentPushesPerImport: Int
    /// For error messages.
    public var configPath: String

    public var topic: String { bundleId + ".push-type.liveactivity" }

    /// Names the first wrong key (78); does not read the key file.
    public init(_ config: APNsConfig, configPath: String) throws {
        func required(_ value: String?, _ key: String, _ what: String) throws -> String {
            guard let value, !value.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ConfigError(path: configPath, key: "apns.\(key)", expected: "required: \(what)")
            }
            return value
        }
        func identifier(_ value: String?, _ key: String, _ what: String) throws -> String {
            let value = try required(value, key, what)
            guard value.utf8.count == 10, value.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) }) else {
                throw ConfigError(path: configPath, key: "apns.\(key)", expected: "\(what): 10 characters A-Z, 0-9")
            }
            return value
        }
        self.configPath = configPath
        keyFile = try required(config.keyFile, "keyFile", "the .p8 signing key file").expandingTilde
        keyId = try identifier(config.keyId, "keyId", "the signing key's Key ID")
        teamId = try identifier(config.teamId, "teamId", "the developer account's Team ID")
        bundleId = try required(config.bundleId, "bundleId", "the app's bundle id")
        switch config.environment ?? "sandbox" {
        case "sandbox": host = Self.sandboxHost
        case "production": host = Self.productionHost
        default: throw ConfigError(path: configPath, key: "apns.environment", expected: "sandbox or production")
        }
        if let override = config.host { host = try Self.checkedHost(override, configPath: configPath) }
        caFile = config.caFile?.expandingTilde
        // Again for settings built in code.
        try ConfigLimits.check(try JSONValue(encoding: config), ranges: APNsConfig.ranges, keyPrefix: "apns", path: configPath)
        waitBudget = config.waitBudgetSeconds ?? 60
        concurrency = config.concurrency ?? 100
        timeout = config.timeoutSeconds ?? 10
        minimumUpdateInterval = config.minimumUpdateIntervalSeconds ?? 5
        maxUrgentPushesPerImport = config.maxUrgentPushesPerImport ?? 8
    }

    /// `https://host[:port]`: no path, query, fragment or `user:password@` (a credential in a
    /// URL ends up in logs; a path would be silently replaced by `/3/device/…`).
    static func checkedHost(_ text: String, configPath: String) throws -> String {
        func refuse(_ why: String) -> ConfigError {
            ConfigError(path: configPath, key: "apns.host", expected: "an https://host[:port] URL (\(why))")
        }
        let trimmed = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard trimmed.hasPrefix("https://"), let url = URLComponents(string: trimmed), url.scheme == "https",
            let host = url.host, !host.isEmpty
        else { throw refuse("found '\(text.prefix(80))'") }
        guard url.user == nil, url.password == nil, !trimmed.dropFirst("https://".count).contains("@") else {
            throw refuse("no user:password@; APNs authenticates with the signing key")
        }
        guard url.path.isEmpty else { throw refuse("no path: found '\(url.path.prefix(80))'") }
        guard url.query == nil, !trimmed.contains("?") else { throw refuse("no query") }
        guard url.fragment == nil, !trimmed.contains("#") else { throw refuse("no fragment") }
        return trimmed
    }

    /// A .p8 is about 250 bytes.
    static let keyFileLimit = 8 * 1024

    /// A regular file of at most 8 KiB, mode 0600, PKCS#8 P-256; its bytes never appear in an error.
    public func loadSigningKey() throws -> P256SigningKey {
        var info = stat()
        guard stat(keyFile, &info) == 0 else {
            throw FileError.missingInput(path: keyFile, reason: "\(systemErrorMessage()) (apns.keyFile)")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw FileError.missingInput(path: keyFile, reason: "not a regular file (apns.keyFile)")
        }
        let mode = UInt16(info.st_mode & 0o777)
        guard mode & 0o077 == 0 else { throw PushError.keyFileMode(path: keyFile, mode: mode) }
        try Self.checkOwner(info, path: keyFile)
        guard info.st_size <= Self.keyFileLimit else {
            throw PushError.keyNotP256(
                path: keyFile,
                reason: "\(info.st_size) bytes; a .p8 key is about 250 (at most \(Self.keyFileLimit / 1024) KiB is read)")
        }
        guard let handle = FileHandle(forReadingAtPath: keyFile) else {
            throw FileError.missingInput(path: keyFile, reason: "cannot read (apns.keyFile)")
        }
        defer { try? handle.close() }
        // Bounded even if the file grew since `stat`.
        let data = (try? handle.read(upToCount: Self.keyFileLimit + 1)) ?? Data()
        guard data.count <= Self.keyFileLimit else {
            throw PushError.keyNotP256(
                path: keyFile, reason: "more than \(Self.keyFileLimit / 1024) KiB; a .p8 key is about 250 bytes")
        }
        return try Self.signingKey(pem: data, path: keyFile)
    }

    /// Another user who owns a private file can change its mode and content at will.
    static func checkOwner(_ info: stat, path: String) throws {
        guard info.st_uid == geteuid() else {
            throw PushError.notPrivate(path: path, reason: "owned by uid \(info.st_uid), not by this user (uid \(geteuid()))")
        }
    }

    /// Refuses a private file (`devices.json`) that others may read or write, or another user owns.
    public static func checkPrivate(_ path: String) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard info.st_mode & S_IFMT == S_IFREG else { throw PushError.notPrivate(path: path, reason: "not a regular file") }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            throw PushError.notPrivate(path: path, reason: "mode \(String(mode, radix: 8)) lets others read or write it")
        }
        try checkOwner(info, path: path)
    }

    /// A PKCS#8 P-256 key in PEM, else what is wrong. SEC1 is refused: Apple issues PKCS#8, so
    /// another format is more likely the wrong file.
    static func signingKey(pem data: Data, path: String) throws -> P256SigningKey {
        func refuse(_ reason: String) -> PushError { .keyNotP256(path: path, reason: reason) }
        if data.starts(with: [0xEF, 0xBB, 0xBF]) || data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) {
            throw refuse("it starts with a byte order mark (an editor saved it as 'UTF-8 with BOM'); save it without one")
        }
        guard let pem = String(data: data, encoding: .utf8) else { throw refuse("it is not text (a PEM file is ASCII)") }
        let begin = "-----BEGIN PRIVATE KEY-----", end = "-----END PRIVATE KEY-----"
        guard let start = pem.range(of: begin) else {
            throw refuse(
                pem.contains("-----BEGIN EC PRIVATE KEY-----")
                    ? "a SEC1 'EC PRIVATE KEY' block; Apple's .p8 is PKCS#8 ('-----BEGIN PRIVATE KEY-----')"
                    : "no '\(begin)' block")
        }
        guard let stop = pem.range(of: end, range: start.upperBound..<pem.endIndex) else {
            throw refuse("no '\(end)' line: the file was cut short")
        }
        let base64 = pem[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
        guard let der = Data(base64Encoded: String(base64)) else { throw refuse("the block is not valid base64") }
        do {
            return try P256SigningKey(pkcs8: der)
        } catch {
            throw refuse("the PKCS#8 block does not hold a P-256 key (\(der.count) bytes of DER)")
        }
    }
}

extension String {
    var expandingTilde: String { (self as NSString).expandingTildeInPath }
}
