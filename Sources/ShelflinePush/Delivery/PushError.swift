import ShelflineCore

/// What stops `shelfline-push`; each case is one line a user can act on, with its sysexits status.
public enum PushError: ShelflineError, Equatable {
    /// The key file is readable by others: APNs keys sign for the whole team.
    case keyFileMode(path: String, mode: UInt16)
    /// A private file (the key, `devices.json`) that others may read or write, or that another
    /// user owns: anyone able to write `devices.json` could add their own secret's digest.
    case notPrivate(path: String, reason: String)
    /// The key file is not a PKCS#8 P-256 private key (the `.p8` Apple issues).
    case keyNotP256(path: String, reason: String)
    /// APNs rejected the provider token twice (after one renewal).
    case providerTokenRejected(keyId: String, status: Int, reason: String)
    /// A device token that is not hex or has the wrong length.
    case malformedToken(String, reason: String)
    /// The registry or outbox was written by a newer shelfline.
    case newerVersion(path: String, found: Int, supported: Int)
    /// Pushes left for the next run: APNs busy (429/5xx) beyond the wait budget, or no network.
    case deferred(count: Int, reason: String)
    /// APNs refused pushes as malformed (413, other 400s): a bug, logged, never retried.
    case rejected(count: Int)
    /// The host's TLS certificate is not trusted (not Apple's, and not in `apns.caFile`).
    case untrustedCertificate(host: String, reason: String)
    /// The host answered without negotiating HTTP/2: it is not APNs (or a proxy in between
    /// downgraded the connection); nothing it answers counts as delivered.
    case notHTTP2(host: String, version: String)
    /// `serve` could not listen on `--listen` (the port in use, the address not this machine's).
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
