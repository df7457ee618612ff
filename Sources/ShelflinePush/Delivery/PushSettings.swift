#if canImport(Glibc)
import Glibc
#endif
import Crypto
import Foundation
import ShelflineCore

/// `pipeline.json`'s `apns` section, checked and resolved: what a sender needs.
public struct PushSettings: Sendable {
    public static let sandboxHost = "https://api.sandbox.push.apple.com"
    public static let productionHost = "https://api.push.apple.com"

    /// `https://host[:port]`, no trailing slash.
    public var host: String
    public var keyFile: String
    public var keyId: String
    public var teamId: String
    public var bundleId: String
    public var caFile: String?
    public var waitBudget: Double
    public var concurrency: Int
    public var timeout: Double
    /// The config file these came from, for error messages.
    public var configPath: String

    /// `<bundleId>.push-type.liveactivity`.
    public var topic: String { bundleId + ".push-type.liveactivity" }

    /// Checks every key, naming the first wrong one (exit 78). Does not read the key file.
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
        if let override = config.host {
            guard override.hasPrefix("https://"), override.count > "https://".count else {
                throw ConfigError(path: configPath, key: "apns.host", expected: "an https://host[:port] URL")
            }
            host = override.hasSuffix("/") ? String(override.dropLast()) : override
        }
        caFile = config.caFile?.expandingTilde
        waitBudget = config.waitBudgetSeconds ?? 60
        concurrency = config.concurrency ?? 100
        timeout = config.timeoutSeconds ?? 10
        guard waitBudget >= 0 else { throw ConfigError(path: configPath, key: "apns.waitBudgetSeconds", expected: "a number ≥ 0") }
        guard (1...1000).contains(concurrency) else { throw ConfigError(path: configPath, key: "apns.concurrency", expected: "1 to 1000") }
        guard timeout > 0 else { throw ConfigError(path: configPath, key: "apns.timeoutSeconds", expected: "a number > 0") }
    }

    /// Reads the signing key: mode 0600 (else exit 78 with the chmod remedy), PKCS#8 P-256.
    /// The key's bytes never appear in an error.
    public func loadSigningKey() throws -> P256.Signing.PrivateKey {
        var info = stat()
        guard stat(keyFile, &info) == 0 else {
            throw FileError.missingInput(path: keyFile, reason: "\(systemErrorMessage()) (apns.keyFile)")
        }
        let mode = UInt16(info.st_mode & 0o777)
        guard mode & 0o077 == 0 else { throw PushError.keyFileMode(path: keyFile, mode: mode) }
        guard let data = FileManager.default.contents(atPath: keyFile) else {
            throw FileError.missingInput(path: keyFile, reason: "cannot read (apns.keyFile)")
        }
        return try Self.signingKey(pem: String(decoding: data, as: UTF8.self), path: keyFile)
    }

    /// Parses a PKCS#8 P-256 private key in PEM. SEC1 (`BEGIN EC PRIVATE KEY`) is refused too:
    /// Apple issues PKCS#8, and a different file is more likely the wrong file.
    static func signingKey(pem: String, path: String) throws -> P256.Signing.PrivateKey {
        guard pem.contains("-----BEGIN PRIVATE KEY-----") else {
            throw PushError.keyNotP256(path: path, reason: "no '-----BEGIN PRIVATE KEY-----' block")
        }
        do {
            return try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw PushError.keyNotP256(path: path, reason: "the PKCS#8 block does not hold a P-256 key")
        }
    }
}

extension String {
    var expandingTilde: String { (self as NSString).expandingTildeInPath }
}
