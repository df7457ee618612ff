import Foundation
import ShelflineCore

/// `register`, `unregister` and `list`, under the push lock.
public struct TokenRegistrar: Sendable {
    public var store: PushStore

    public init(store: PushStore) { self.store = store }

    /// Adds or replaces `token` (its cursor reset: delivery restarts at the latest snapshot); false
    /// when registered exactly so. `device`: the `serve` caller, refused another device's token.
    @discardableResult
    public func register(_ token: DeviceToken, activity: PushActivity, kind: TokenKind, now: Date, device: Device? = nil)
        async throws -> Bool
    {
        try await store.withLock {
            var registry = try store.readRegistry()
            var outbox = try store.readOutbox()
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
            if outbox.cursors.removeValue(forKey: token.hex) != nil { try store.write(outbox) }
            try store.write(registry)
            return true
        }
    }

    /// Removes `token` and its cursor; false when not registered.
    @discardableResult
    public func unregister(_ token: DeviceToken, device: Device? = nil) async throws -> Bool {
        try await store.withLock {
            var registry = try store.readRegistry()
            var outbox = try store.readOutbox()
            guard let existing = registry.tokens.first(where: { $0.token == token }) else { return false }
            if let device, !existing.isOwned(by: device) { throw DeviceError.notOwner }
            registry.tokens.removeAll { $0.token == token }
            try store.write(registry)
            if outbox.cursors.removeValue(forKey: token.hex) != nil { try store.write(outbox) }
            return true
        }
    }

    /// One line per token, the full token (to unregister it).
    public func list(workspace: Workspace) async throws -> [String] {
        try await store.withLock {
            let registry = try store.readRegistry()
            let outbox = try store.readOutbox()
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
