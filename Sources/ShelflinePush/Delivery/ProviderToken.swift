import Crypto
import Foundation

/// The APNs provider token: a JWT (ES256, header `kid`, claims `iss` = team id and `iat`) signed
/// with the team's .p8 key. Apple refuses a token older than an hour and one renewed more often
/// than every 20 minutes, so one is reused for `lifetime` (50 minutes) and then renewed.
public final class ProviderToken: @unchecked Sendable {
    /// Reused for at least 20 minutes and renewed before 60.
    public static let lifetime: TimeInterval = 50 * 60

    private let key: P256.Signing.PrivateKey
    private let keyId: String
    private let teamId: String
    private let now: @Sendable () -> Date
    private let lock = NSLock()
    private var current: (jwt: String, issuedAt: Int)?

    public init(key: P256.Signing.PrivateKey, keyId: String, teamId: String, now: @escaping @Sendable () -> Date) {
        self.key = key
        self.keyId = keyId
        self.teamId = teamId
        self.now = now
    }

    /// The token to send now: the current one while younger than `lifetime`, else a new one.
    public func jwt() throws -> String {
        try lock.withLock {
            let time = Int(now().timeIntervalSince1970)
            if let current, TimeInterval(time - current.issuedAt) < Self.lifetime, time >= current.issuedAt {
                return current.jwt
            }
            return try issue(at: time)
        }
    }

    /// After APNs rejected `rejected` (403 Expired/InvalidProviderToken): a new token, unless
    /// another request already renewed it.
    public func renew(replacing rejected: String) throws -> String {
        try lock.withLock {
            if let current, current.jwt != rejected { return current.jwt }
            return try issue(at: Int(now().timeIntervalSince1970))
        }
    }

    private func issue(at time: Int) throws -> String {
        let header = #"{"alg":"ES256","kid":"\#(keyId)"}"#
        let claims = #"{"iss":"\#(teamId)","iat":\#(time)}"#
        let signingInput = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(claims.utf8))
        let signature = try key.signature(for: Data(signingInput.utf8))
        let jwt = signingInput + "." + Base64URL.encode(signature.rawRepresentation)
        current = (jwt, time)
        return jwt
    }
}

/// Base64url without padding (RFC 7515).
public enum Base64URL {
    public static func encode(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public static func decode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
