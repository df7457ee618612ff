import COpenSSL
import Foundation

/// SHA-256 from the system's libcrypto: swift-crypto would build a second BoringSSL, about a fifth
/// of a fresh build (docs/performance.md, "Build"), for the same processor instructions.
public struct SHA256: Sendable {
    private var context = SHA256_CTX()

    public init() { SHA256_Init(&context) }

    public mutating func update(bufferPointer bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        SHA256_Update(&context, base, bytes.count)
    }

    public mutating func update(data: some DataProtocol) {
        for region in data.regions { region.withUnsafeBytes { update(bufferPointer: $0) } }
    }

    /// Leaves the hasher as it was.
    public func finalize() -> SHA256Digest {
        var context = context
        var digest = SHA256Digest()
        withUnsafeMutableBytes(of: &digest.bytes) {
            _ = SHA256_Final($0.baseAddress!.assumingMemoryBound(to: UInt8.self), &context)
        }
        return digest
    }

    public static func hash(data: some DataProtocol) -> SHA256Digest {
        var hasher = SHA256()
        hasher.update(data: data)
        return hasher.finalize()
    }

    public static func hash(data bytes: UnsafeRawBufferPointer) -> SHA256Digest {
        var hasher = SHA256()
        hasher.update(bufferPointer: bytes)
        return hasher.finalize()
    }
}

/// Held inline: book ids hash every record's key, and a heap array would be an allocation per record.
public struct SHA256Digest: RandomAccessCollection, Hashable, Sendable {
    fileprivate var bytes = SIMD32<UInt8>()
    public var startIndex: Int { 0 }
    public var endIndex: Int { 32 }
    public subscript(position: Int) -> UInt8 { bytes[position] }

    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try Swift.withUnsafeBytes(of: bytes, body)
    }
}

/// From libcrypto's generator; it fails only unseeded, when nothing secret may be made.
public func secureRandomBytes(_ count: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    precondition(RAND_bytes(&bytes, Int32(count)) == 1, "libcrypto's random generator is not seeded")
    return bytes
}
