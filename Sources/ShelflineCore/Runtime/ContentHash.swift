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
        var hasher = SHA256()
        try stream(source) { chunk in
            hasher.update(bufferPointer: chunk)
            try file.write(chunk)
        }
        guard hex(hasher.finalize()) == expected else {
            file.abandon()
            throw FileError.io(path: source, reason: "file changed while being imported; try again")
        }
        try file.commit()
    }

    /// Calls `body` with the file's bytes, chunk by chunk.
    static func stream(_ path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw FileError.missingInput(path: path, reason: systemErrorMessage())
        }
        guard (info.st_mode & S_IFMT) != S_IFDIR else {
            throw FileError.missingInput(path: path, reason: "is a directory")
        }
        // A FIFO or device would block `open`/`read` forever (issue 10): refuse it (66).
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw FileError.missingInput(path: path, reason: "\(StageFiles.describe(info.st_mode & S_IFMT)), not a regular file")
        }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw FileError.missingInput(path: path, reason: systemErrorMessage()) }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 18)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileError.io(path: path, reason: "read: \(systemErrorMessage())")
            }
            if count == 0 { return }
            try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
        }
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
