import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// The APNs provider token, a JWT signed with the team's .p8 key. Apple refuses one older than an
/// hour and answers 429 to renewals within 20 minutes, so one is reused for `lifetime`, shared by
/// every process through `storePath` (mode 0600); a stored file that does not decode is replaced.
public final class ProviderToken: @unchecked Sendable {
    public static let lifetime: TimeInterval = 50 * 60

    private let key: P256SigningKey
    private let keyId: String
    private let teamId: String
    /// Identifies the signing key without revealing it: a digest of its public half.
    private let keyDigest: String
    private let now: @Sendable () -> Date
    private let storePath: String?
    private let lock = NSLock()
    private var current: Stored?

    struct Stored: Codable, Equatable {
        var version: Int
        var keyId: String
        var teamId: String
        var keyDigest: String
        var issuedAt: Int
        var jwt: String
    }

    public init(
        key: P256SigningKey, keyId: String, teamId: String, now: @escaping @Sendable () -> Date,
        storePath: String? = nil
    ) {
        self.key = key
        self.keyId = keyId
        self.teamId = teamId
        self.keyDigest = String(ContentHash.bytes(key.publicPoint).prefix(32))
        self.now = now
        self.storePath = storePath
    }

    /// The current token (in memory, else stored) while younger than `lifetime`, of this key, key id
    /// and team, and not `rejected` (another process may already have replaced it), else a new one.
    public func jwt(replacing rejected: String? = nil) throws -> String {
        try lock.withLock {
            let time = Int(now().timeIntervalSince1970)
            if let current, current.jwt != rejected, usable(current, at: time) { return current.jwt }
            return try withStore { stored in
                if let stored, stored.jwt != rejected, usable(stored, at: time) {
                    current = stored
                    return stored.jwt
                }
                return try issue(at: time)
            }
        }
    }

    private func usable(_ token: Stored, at time: Int) -> Bool {
        token.keyId == keyId && token.teamId == teamId && token.keyDigest == keyDigest && time >= token.issuedAt
            && TimeInterval(time - token.issuedAt) < Self.lifetime
    }

    /// Under a lock, so two processes never both renew it; nil when none or it does not decode.
    private func withStore(_ body: (Stored?) throws -> String) throws -> String {
        guard let storePath else { return try body(nil) }
        let directory = (storePath as NSString).deletingLastPathComponent
        try Workspace.makeDirectory(directory)
        let fd = try FileLock.acquire(directory + "/.provider-token.lock")
        defer { FileLock.release(fd) }
        let stored = FileManager.default.contents(atPath: storePath).flatMap { try? JSONDecoder().decode(Stored.self, from: $0) }
        return try body(stored)
    }

    private func issue(at time: Int) throws -> String {
        let header = #"{"alg":"ES256","kid":"\#(keyId)"}"#
        let claims = #"{"iss":"\#(teamId)","iat":\#(time)}"#
        let signingInput = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(claims.utf8))
        let signature = try key.signature(for: Data(signingInput.utf8))
        let jwt = signingInput + "." + Base64URL.encode(signature)
        let token = Stored(version: 1, keyId: keyId, teamId: teamId, keyDigest: keyDigest, issuedAt: time, jwt: jwt)
        if let storePath {
            // A bearer credential for up to an hour: readable by its owner only.
            try writeJSONFile(token, to: storePath, permissions: 0o600)
        }
        current = token
        return jwt
    }
}

/// Base64url without padding (RFC 7515).
public enum Base64URL {
    public static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
