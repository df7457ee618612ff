#if canImport(Glibc)
import Glibc
#endif
import Crypto
import Foundation

/// SHA-256 content hashes: what the orchestrator fingerprints and what run ids are made of.
public enum ContentHash {
    /// Hex SHA-256 of a file's bytes, streamed.
    public static func file(_ path: String) throws -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw FileError.missingInput(path: path, reason: systemErrorMessage())
        }
        guard (info.st_mode & S_IFMT) != S_IFDIR else {
            throw FileError.missingInput(path: path, reason: "is a directory")
        }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw FileError.missingInput(path: path, reason: systemErrorMessage()) }
        defer { close(fd) }
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 18)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileError.io(path: path, reason: "read: \(systemErrorMessage())")
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
        return hex(hasher.finalize())
    }

    /// Hex SHA-256 of bytes.
    public static func bytes(_ data: some DataProtocol) -> String {
        hex(SHA256.hash(data: data))
    }

    /// Hex SHA-256 of a string's UTF-8.
    public static func string(_ text: String) -> String {
        bytes(Data(text.utf8))
    }

    static func hex(_ digest: some Sequence<UInt8>) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
