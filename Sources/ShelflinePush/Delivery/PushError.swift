import ShelflineCore

/// What stops `shelfline-push`; each case is one line a user can act on, with its sysexits status.
public enum PushError: ShelflineError, Equatable {
    /// APNs keys sign for the whole team.
    case keyFileMode(path: String, mode: UInt16)
    /// Anyone able to write `devices.json` could add their own secret's digest.
    case notPrivate(path: String, reason: String)
    case keyNotP256(path: String, reason: String)
    /// Even after one renewal.
    case providerTokenRejected(keyId: String, status: Int, reason: String)
    case malformedToken(String, reason: String)
    case newerVersion(path: String, found: Int, supported: Int)
    /// APNs busy beyond the wait budget, or no network.
    case deferred(count: Int, reason: String)
    /// Malformed (413, other 400s): a bug, never retried.
    case rejected(count: Int)
    case untrustedCertificate(host: String, reason: String)
    /// Not APNs (or a proxy downgraded the connection): nothing it answers counts as delivered.
    case notHTTP2(host: String, version: String)
    case cannotListen(address: String, reason: String)

    public var exitStatus: ExitStatus {
        switch self {
        case .keyFileMode, .notPrivate, .keyNotP256, .providerTokenRejected, .untrustedCertificate, .notHTTP2: .config
        case .malformedToken: .usage
        case .newerVersion, .rejected: .dataError
        case .deferred, .cannotListen: .tryLater
        }
    }

    /// True for the errors `PushSender.send` throws once it has written the run's report.
    public var thrownAfterReport: Bool {
        switch self {
        case .deferred, .rejected, .providerTokenRejected, .untrustedCertificate, .notHTTP2: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .keyFileMode(let path, let mode):
            "\(path): APNs key file has mode \(String(mode, radix: 8)); it must be readable by its owner only: chmod 600 \(path)"
        case .notPrivate(let path, let reason):
            "\(path): \(reason); it must be this user's alone: chown $(id -u) \(path) && chmod 600 \(path)"
        case .keyNotP256(let path, let reason):
            "\(path): not an APNs signing key (a PKCS#8 P-256 .p8 PEM file): \(reason)"
        case .providerTokenRejected(let keyId, let status, let reason):
            "APNs rejected the provider token for key id \(keyId) (\(status) \(reason)) even after renewing it: check apns.keyId, apns.teamId and apns.keyFile"
        case .malformedToken(let token, let reason):
            "token '\(token.prefix(16))\(token.count > 16 ? "…" : "")': \(reason)"
        case .newerVersion(let path, let found, let supported):
            "\(path): written by a newer shelfline-push (format version \(found), this one reads up to \(supported)); upgrade, or move the file away"
        case .deferred(let count, let reason):
            "\(count) push\(count == 1 ? "" : "es") left for the next run: \(reason)"
        case .untrustedCertificate(let host, let reason):
            "\(host): the TLS certificate is not trusted (\(reason)): check apns.host, or add the certificate to apns.caFile"
        case .notHTTP2(let host, let version):
            "\(host) answered over \(version), not HTTP/2: APNs speaks HTTP/2 only, so it is not APNs (check apns.host and any proxy); nothing was recorded as delivered"
        case .cannotListen(let address, let reason):
            "cannot listen on \(address): \(reason); is another serve running there? Choose another with --listen HOST:PORT"
        case .rejected(let count):
            "APNs refused \(count) push\(count == 1 ? "" : "es") as malformed (a bug; see the log lines with status=413 or 400); they are not retried"
        }
    }
}
