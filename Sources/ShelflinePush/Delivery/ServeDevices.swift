import Foundation
import ShelflineCore

/// One device allowed to call `serve`; its secret is printed once by `devices add` and never stored.
public struct Device: Codable, Sendable, Equatable {
    public var name: String
    /// Lower-case hex SHA-256 of the secret's UTF-8 bytes.
    public var secretSHA256: String
    /// Unix seconds.
    public var addedAt: Int

    /// Owns the tokens this device registers: never reused, unlike the name (else a new `bob` could
    /// delete the old bob's tokens), as it comes from a secret drawn for this device alone.
    public var id: String { String(secretSHA256.prefix(32)) }
}

/// `<workspace>/push/devices.json` (mode 0600).
public struct DeviceList: Codable, Sendable, Equatable {
    public var version = PushStore.formatVersion
    public var devices: [Device] = []
}

/// What `devices` and the server's auth refuse; no secret in any of them.
public struct DeviceError: ShelflineError, Equatable {
    public var description: String

    public var exitStatus: ExitStatus { .usage }

    static func badName(_ name: String) -> Self {
        Self(description: "device name '\(name.prefix(70))': use 1 to 64 of A-Z a-z 0-9 . _ -")
    }
    static func exists(_ name: String) -> Self {
        Self(description: "device '\(name)' exists; remove it first (shelfline-push devices remove \(name))")
    }
    static func unknown(_ name: String) -> Self { Self(description: "no device named '\(name)' (shelfline-push devices list)") }
    /// A token another device (or the server's own `register`) owns.
    static let notOwner = Self(description: "the token belongs to another device")
}

/// `devices add|list|remove` and the server's secret check. The server reads `devices.json` per
/// request, so a change takes effect without a restart.
extension PushStore {
    /// A file others may write or read, or another user owns, is refused (78): with it, anyone could
    /// add the digest of a secret of their own.
    public func readDevices() throws -> DeviceList {
        guard FileManager.default.fileExists(atPath: devicesPath) else { return DeviceList() }
        try PushSettings.checkPrivate(devicesPath)
        let list = try readJSONFile(DeviceList.self, from: devicesPath)
        guard list.version <= PushStore.formatVersion else {
            throw PushError.newerVersion(path: devicesPath, found: list.version, supported: PushStore.formatVersion)
        }
        return list
    }

    /// Returns the new 256-bit secret: the only time it exists in clear.
    public func addDevice(_ name: String, now: Date) async throws -> String {
        guard (1...64).contains(name.utf8.count),
            name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
        else { throw DeviceError.badName(name) }
        let secret = secureRandomBytes(32).map { String(format: "%02x", $0) }.joined()
        try await withLock {
            var list = try readDevices()
            guard !list.devices.contains(where: { $0.name == name }) else { throw DeviceError.exists(name) }
            list.devices.append(
                Device(name: name, secretSHA256: ContentHash.string(secret), addedAt: Int(now.timeIntervalSince1970)))
            list.devices.sort { $0.name < $1.name }
            try publish(list, to: devicesPath, permissions: 0o600)
        }
        return secret
    }

    /// Removes `name`; the tokens it registered stay (remove them with `unregister`).
    public func removeDevice(_ name: String) async throws {
        try await withLock {
            var list = try readDevices()
            guard list.devices.contains(where: { $0.name == name }) else { throw DeviceError.unknown(name) }
            list.devices.removeAll { $0.name == name }
            try publish(list, to: devicesPath, permissions: 0o600)
        }
    }

    /// Compares digests, so the time taken says nothing about the secret.
    public func device(secret: String) throws -> Device? {
        let digest = ContentHash.string(secret)
        return try readDevices().devices.first { $0.secretSHA256 == digest }
    }
}
