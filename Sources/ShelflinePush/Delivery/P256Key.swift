import COpenSSL
import Foundation

/// An ES256 signing key (ECDSA P-256, SHA-256) held by the system's libcrypto.
public final class P256SigningKey: @unchecked Sendable {
    /// Owned; libcrypto's key objects may be used from several threads for signing.
    private let key: OpaquePointer

    private init(key: OpaquePointer) { self.key = key }

    deinit { EVP_PKEY_free(key) }

    public enum KeyError: Error, Equatable {
        case notPKCS8
        /// Another curve or kind of key (the curve's name, if any).
        case notP256(curve: String?)
        case signingFailed
    }

    /// The body of a .p8 file's `BEGIN PRIVATE KEY` block.
    public convenience init(pkcs8 der: Data) throws {
        guard
            let parsed = der.withUnsafeBytes({ bytes in
                shelfline_pkcs8_private_key(bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count)
            })
        else { throw KeyError.notPKCS8 }
        var name = [CChar](repeating: 0, count: 64)
        let curve = shelfline_ec_curve_name(parsed, &name, name.count) == 1 ? Self.text(name) : nil
        guard curve == "prime256v1" else {
            EVP_PKEY_free(parsed)
            throw KeyError.notP256(curve: curve)
        }
        self.init(key: parsed)
    }

    /// Another curve only for tests that need a wrong key.
    public static func generate(curve: String = "P-256") -> P256SigningKey {
        guard let key = shelfline_ec_generate(curve) else { preconditionFailure("libcrypto could not make a \(curve) key") }
        return P256SigningKey(key: key)
    }

    /// The public point, uncompressed (`04 || x || y`, 65 bytes).
    public var publicPoint: [UInt8] {
        var point = [UInt8](repeating: 0, count: 133)
        let count = shelfline_ec_public_point(key, &point, point.count)
        return Array(point.prefix(count))
    }

    /// `r || s`, 32 bytes each (the JWS form).
    public func signature(for message: Data) throws -> Data {
        var signature = [UInt8](repeating: 0, count: 64)
        let signed = message.withUnsafeBytes { bytes in
            shelfline_es256_sign(key, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count, &signature)
        }
        guard signed == 1 else { throw KeyError.signingFailed }
        return Data(signature)
    }

    /// PKCS#8 PEM.
    public var pemRepresentation: String {
        var pointer: UnsafeMutablePointer<CChar>?
        let count = shelfline_pkcs8_pem(key, &pointer)
        guard let pointer, count > 0 else { preconditionFailure("libcrypto could not write the key as PEM") }
        defer { free(pointer) }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    private static func text(_ characters: [CChar]) -> String {
        String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
