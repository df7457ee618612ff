import Foundation
import ShelflineCore
import Testing

/// SHA-256 comes from the system's libcrypto: its digests must be the standard's (book ids,
/// run ids and the files' stamps are derived from them and stored).
struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func digestsAreTheStandardsTestVectors(message: String, expected: String) {
        #expect(ContentHash.string(message) == expected)
    }

    @Test func aStreamedDigestEqualsTheOneShotDigestWhateverTheChunks() {
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 7) }
        let whole = SHA256.hash(data: bytes)
        for chunk in [1, 63, 64, 65, 4096, 99_999] {
            var hasher = SHA256()
            var start = 0
            while start < bytes.count {
                let end = min(start + chunk, bytes.count)
                bytes[start..<end].withUnsafeBytes { hasher.update(bufferPointer: $0) }
                start = end
            }
            #expect(hasher.finalize() == whole, "chunks of \(chunk)")
        }
    }

    @Test func finalizingLeavesTheHasherAsItWas() {
        var hasher = SHA256()
        hasher.update(data: Array("ab".utf8))
        _ = hasher.finalize()
        hasher.update(data: Array("c".utf8))
        #expect(hasher.finalize() == SHA256.hash(data: Array("abc".utf8)))
    }
}
