import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// Which Live Activity a token belongs to.
public enum PushActivity: String, Codable, Sendable, CaseIterable {
    case `import`
    case beerQueue = "beer-queue"
}

/// An update token receives `update` and `end`; a push-to-start token receives `start`.
public enum TokenKind: String, Codable, Sendable, CaseIterable {
    case update, start
}

/// One registered token.
public struct Registration: Codable, Sendable, Equatable {
    public var token: DeviceToken
    public var activity: PushActivity
    public var kind: TokenKind
    /// Unix seconds.
    public var registeredAt: Int
    /// The device that registered it through `serve` (nil: `register`); only it may change it over HTTP.
    public var device: String?
    /// Ownership goes by id: a name can be removed and added again.
    public var deviceId: String?

    public init(
        token: DeviceToken, activity: PushActivity, kind: TokenKind, registeredAt: Int, device: String? = nil,
        deviceId: String? = nil
    ) {
        self.token = token
        self.activity = activity
        self.kind = kind
        self.registeredAt = registeredAt
        self.device = device
        self.deviceId = deviceId
    }

    /// A token recorded before ids (name only) is owned by the device of that name only if it was
    /// added before the token was registered.
    func isOwned(by owner: Device) -> Bool {
        if let deviceId { return deviceId == owner.id }
        return device == owner.name && owner.addedAt <= registeredAt
    }
}

/// Identifies one snapshot of a history: its timestamp and a digest of its line.
public struct SnapshotID: Codable, Sendable, Hashable {
    public var timestamp: Int
    public var digest: String
}

/// The last snapshot of its activity a token was given (or that was not for it).
public struct Cursor: Codable, Sendable, Equatable {
    public var activity: PushActivity
    public var last: SnapshotID
    /// Unix seconds of the last delivery (200), if any.
    public var deliveredAt: Int?
}

/// `<workspace>/push/registry.json`: the registered tokens, sorted by token.
public struct Registry: Codable, Sendable, Equatable {
    public var version = PushStore.formatVersion
    public var tokens: [Registration]

    public init(tokens: [Registration] = []) { self.tokens = tokens }
}

/// `<workspace>/push/outbox.json`: one cursor per token.
public struct Outbox: Codable, Sendable, Equatable {
    public var version = PushStore.formatVersion
    public var cursors: [String: Cursor] = [:]
}

/// The push state files in `<workspace>/push/`, each rewritten atomically; a send appends
/// deliveries to `OutboxJournal` instead. Each read-modify-write holds `withLock`; a sender holds
/// `withSendLock` for its run and `withLock` never while waiting for APNs, so a `PUT` never waits on it.
public struct PushStore: Sendable {
    /// The version these files are written with; a newer one is refused, not misread.
    public static let formatVersion = 1

    public var directory: String

    public init(workspace: Workspace) {
        directory = workspace.root + "/push"
    }

    public var registryPath: String { directory + "/registry.json" }
    public var outboxPath: String { directory + "/outbox.json" }
    public var journalPath: String { directory + "/outbox.journal" }
    public var reportPath: String { directory + "/push-report.json" }
    public var providerTokenPath: String { directory + "/provider-token.json" }
    public var devicesPath: String { directory + "/devices.json" }

    public func withLock<T>(_ body: () async throws -> T) async throws -> T {
        try await holding(directory + "/.lock", body)
    }

    /// Runs `body` as the one sender, so two senders never plan from the same cursors.
    public func withSendLock<T>(_ body: () async throws -> T) async throws -> T {
        try await holding(directory + "/.send.lock", body)
    }

    private func holding<T>(_ path: String, _ body: () async throws -> T) async throws -> T {
        try Workspace.makeDirectory(directory)
        let fd = try FileLock.acquire(path)
        defer { FileLock.release(fd) }
        return try await body()
    }

    /// Reads both files anew (a `register` may have changed them), removes `dropped`, compacts the journal.
    func commit(removing dropped: Set<DeviceToken>) async throws {
        try await withLock {
            if !dropped.isEmpty {
                var registry = try readRegistry()
                registry.tokens.removeAll { dropped.contains($0.token) }
                try write(registry)
            }
            let read = try readOutbox()
            var outbox = read
            for token in dropped { outbox.cursors[token.hex] = nil }
            if outbox != read || FileManager.default.fileExists(atPath: journalPath) { try write(outbox) }
        }
    }

    /// Tokens are read in lower case, so two entries differing only in hex case (written by hand
    /// or by an older version) are one token: the later registration is kept, in token order as written.
    public func readRegistry() throws -> Registry {
        var registry = try read(Registry.self, from: registryPath, what: "token registry") ?? Registry()
        let latest = Dictionary(registry.tokens.map { ($0.token, $0) }) { $1.registeredAt >= $0.registeredAt ? $1 : $0 }
        if latest.count != registry.tokens.count { registry.tokens = latest.values.sorted { $0.token < $1.token } }
        return registry
    }

    /// `outbox.json` with a killed send's journal applied; keys lower-cased (of two, the one further on kept).
    public func readOutbox() throws -> Outbox {
        var outbox = try read(Outbox.self, from: outboxPath, what: "push outbox") ?? Outbox()
        try OutboxJournal.replay(path: journalPath, into: &outbox)
        if outbox.cursors.keys.contains(where: { $0 != $0.lowercased() }) {
            outbox.cursors = Dictionary(
                outbox.cursors.sorted { $0.key < $1.key }.map { ($0.key.lowercased(), $0.value) },
                uniquingKeysWith: { $1.last.timestamp > $0.last.timestamp ? $1 : $0 })
        }
        return outbox
    }

    public func write(_ registry: Registry) throws {
        var registry = registry
        registry.tokens.sort { $0.token < $1.token }
        try publish(registry, to: registryPath)
    }

    /// Then drops the journal (a crash in between replays it onto the same cursors: harmless).
    public func write(_ outbox: Outbox) throws {
        try publish(outbox, to: outboxPath)
        try OutboxJournal.remove(path: journalPath)
    }

    public func write(_ report: PushReport) throws {
        try publish(report, to: reportPath)
    }

    func publish(_ value: some Encodable, to path: String, permissions: mode_t = 0o644) throws {
        try Workspace.makeDirectory(directory)
        try writeJSONFile(value, to: path, permissions: permissions)
    }

    /// Nil when absent; the version is checked first, so a newer format is not called corrupt.
    private func read<T: Decodable>(_ type: T.Type, from path: String, what: String) throws -> T? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FileError.missingInput(path: path, reason: "cannot read the \(what)")
        }
        guard let version = try? JSONDecoder().decode(Versioned.self, from: data).version else {
            throw FileError.corrupt(
                path: path, line: nil,
                reason:
                    "not a valid \(what) (no format version); it was not written by shelfline-push: restore it or move it away")
        }
        guard version <= Self.formatVersion else {
            throw PushError.newerVersion(path: path, found: version, supported: Self.formatVersion)
        }
        return try readJSONFile(T.self, from: path)
    }
}

private struct Versioned: Decodable {
    var version: Int
}

/// `register`, `unregister` and `list`, under the push lock.
extension PushStore {
    /// Adds or replaces `token` (its cursor reset: delivery restarts at the latest snapshot); false
    /// when registered exactly so. `device`: the `serve` caller, refused another device's token.
    @discardableResult
    public func register(_ token: DeviceToken, activity: PushActivity, kind: TokenKind, now: Date, device: Device? = nil)
        async throws -> Bool
    {
        try await withLock {
            var registry = try readRegistry()
            var outbox = try readOutbox()
            let existing = registry.tokens.first(where: { $0.token == token })
            if let device, let existing, !existing.isOwned(by: device) { throw DeviceError.notOwner }
            if let existing, existing.activity == activity, existing.kind == kind, existing.device == device?.name,
                existing.deviceId == device?.id
            {
                return false
            }
            registry.tokens.removeAll { $0.token == token }
            registry.tokens.append(
                Registration(
                    token: token, activity: activity, kind: kind,
                    registeredAt: Int(now.timeIntervalSince1970), device: device?.name,
                    deviceId: device?.id))
            if outbox.cursors.removeValue(forKey: token.hex) != nil { try write(outbox) }
            try write(registry)
            return true
        }
    }

    /// Removes `token` and its cursor; false when not registered.
    @discardableResult
    public func unregister(_ token: DeviceToken, device: Device? = nil) async throws -> Bool {
        try await withLock {
            var registry = try readRegistry()
            var outbox = try readOutbox()
            guard let existing = registry.tokens.first(where: { $0.token == token }) else { return false }
            if let device, !existing.isOwned(by: device) { throw DeviceError.notOwner }
            registry.tokens.removeAll { $0.token == token }
            try write(registry)
            if outbox.cursors.removeValue(forKey: token.hex) != nil { try write(outbox) }
            return true
        }
    }

    /// One line per token, the full token (to unregister it).
    public func listTokens(workspace: Workspace) async throws -> [String] {
        try await withLock {
            let registry = try readRegistry()
            let outbox = try readOutbox()
            var feeds: [PushActivity: SnapshotFeed] = [:]
            return try registry.tokens.map { registration in
                if feeds[registration.activity] == nil {
                    feeds[registration.activity] = try SnapshotFeed(workspace: workspace, activity: registration.activity)
                }
                let cursor = outbox.cursors[registration.token.hex]
                let pending = feeds[registration.activity]!.pending(after: cursor).entries.filter { $0.fits(registration.kind) }
                    .count
                let delivered = cursor?.deliveredAt.map { Self.iso($0) } ?? "never"
                return "\(registration.token.hex) \(registration.activity.rawValue) \(registration.kind.rawValue) "
                    + "registered=\(Self.iso(registration.registeredAt)) delivered=\(delivered) pending=\(pending)"
                    + (registration.device.map { " device=\($0)" } ?? "")
            }
        }
    }

    /// Unix seconds as `list` and `devices list` show them.
    public static func iso(_ seconds: Int) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
