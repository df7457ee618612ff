import COpenSSL
import Foundation
import ShelflinePush
import Testing

/// The provider token's key (libcrypto's P-256): signatures verify with its public half only,
/// and a PKCS#8 file round-trips while another curve's key is refused.
struct P256SigningKeyTests {
    private func verifies(_ signature: Data, _ message: Data, by key: P256SigningKey) -> Bool {
        let point = key.publicPoint
        return signature.withUnsafeBytes { signatureBytes in
            message.withUnsafeBytes { messageBytes in
                shelfline_es256_verify(
                    point, point.count, messageBytes.bindMemory(to: UInt8.self).baseAddress, messageBytes.count,
                    signatureBytes.bindMemory(to: UInt8.self).baseAddress) == 1
            }
        }
    }

    @Test func aSignatureVerifiesWithItsKeyAndNoOtherNorForAnotherMessage() throws {
        let key = P256SigningKey.generate(), other = P256SigningKey.generate()
        let message = Data("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJURUFNIn0".utf8)
        let signature = try key.signature(for: message)
        #expect(signature.count == 64)
        #expect(key.publicPoint.count == 65 && key.publicPoint.first == 0x04)
        #expect(verifies(signature, message, by: key))
        #expect(!verifies(signature, message, by: other))
        #expect(!verifies(signature, Data("eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJURUFNIiB9".utf8), by: key))
    }

    @Test func aPKCS8KeyRoundTripsAndAnotherCurveIsRefused() throws {
        func der(_ pem: String) -> Data {
            let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            return Data(base64Encoded: body)!
        }
        let key = P256SigningKey.generate()
        let again = try P256SigningKey(pkcs8: der(key.pemRepresentation))
        #expect(again.publicPoint == key.publicPoint)
        #expect(throws: P256SigningKey.KeyError.notP256(curve: "secp384r1")) {
            try P256SigningKey(pkcs8: der(P256SigningKey.generate(curve: "P-384").pemRepresentation))
        }
        #expect(throws: P256SigningKey.KeyError.notPKCS8) { try P256SigningKey(pkcs8: Data("not a key".utf8)) }
    }
}
