#if canImport(Glibc)
import Glibc
#endif
import Crypto
import Foundation

/// SHA-256 content hashes: what the orchestrator fingerprints and what run ids are made of.
public enum ContentHash {
    /// Hex SHA-256 of a file's bytes, streamed.
    public static func file(_ path: String) throws -> String {
        var hasher = SHA256()
        try stream(path) { hasher.update(bufferPointer: $0) }
        return hex(hasher.finalize())
    }

    /// Copies `source` to `target` atomically in one streamed pass, hashing as it goes. If the
    /// copy's SHA-256 is not `expected` (the source changed since it was hashed), nothing is
    /// published and the source is reported as changed.
    public static func copy(_ source: String, to target: String, expected: String, permissions: mode_t = 0o644) throws {
        let file = try AtomicFile(path: target, permissions: permissions)
        guard try copy(source, into: file) == expected else {
            file.abandon()
            throw FileError.io(path: source, reason: "file changed while being imported; try again")
        }
        try file.commit()
    }

    /// Writes `source`'s bytes to `sink` in one streamed pass and returns their hex SHA-256: a
    /// file hashed and copied with one read where the copy's place depends on the hash.
    public static func copy(_ source: String, into sink: ByteSink) throws -> String {
        var hasher = SHA256()
        try stream(source) { chunk in
            hasher.update(bufferPointer: chunk)
            try sink.write(chunk)
        }
        return hex(hasher.finalize())
    }

    /// Calls `body` with the file's bytes, chunk by chunk.
    static func stream(_ path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        // Core's one plain reader: a FIFO or device would block `open`/`read` forever (issue 10),
        // so it refuses anything but a regular file (66).
        try PlainFileReader(path: path).forEachChunk(body)
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
