import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

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
    ///
    /// Each chunk is hashed and written at once, on two threads, while the next is read on a third
    /// (`ReadAhead`): done in turn, the copy of a 201 MB export takes 0.36 s, and every new import's
    /// first stage waits for it. The hash is of the very bytes written: every thread reads
    /// the same chunk. A sink that takes writes at offsets (`PositionalByteSink`: an `AtomicFile`)
    /// gets each half of a chunk from a thread of its own: writing into pages the kernel has not
    /// used lately was three quarters of the copy's time (a page-cache write of a 201 MB export,
    /// perf), twice the hash's, and it goes as fast on both cores as the hash does on one.
    public static func copy(_ source: String, into sink: ByteSink) throws -> String {
        let step = CopyStep(sink: sink)
        try ReadAhead.forEachChunk(produce: { emit in
            try PlainFileReader(path: source, bufferSize: 1 << 20).forEachChunk(emit)
        }) { chunk in
            step.chunk = chunk
            DispatchQueue.concurrentPerform(iterations: step.parts, execute: step.run)
            step.offset += chunk.count
            if let failure = step.failure { throw failure }
        }
        return hex(step.hasher.finalize())
    }

    /// One chunk of `copy`: part 0 hashes it, the others write it (in halves at their offsets when
    /// the sink is positional). Each part touches only its own state; `chunk` and `offset` are
    /// set, and the failures read, between chunks.
    private final class CopyStep: @unchecked Sendable {
        var hasher = SHA256()
        let sink: any ByteSink
        let positional: (any PositionalByteSink)?
        var chunk = UnsafeRawBufferPointer(start: nil, count: 0)
        /// Where `chunk` starts in the copy.
        var offset = 0
        // One per writing part: the parts run at once, and each sets only its own.
        private var firstFailure: (any Error)?
        private var secondFailure: (any Error)?
        var failure: (any Error)? { firstFailure ?? secondFailure }
        var parts: Int { positional == nil ? 2 : 3 }

        init(sink: any ByteSink) {
            self.sink = sink
            positional = sink as? any PositionalByteSink
        }

        func run(_ part: Int) {
            do {
                if part == 0 {
                    hasher.update(bufferPointer: chunk)
                } else if let positional {
                    let middle = chunk.count / 2
                    let half = part == 1 ? 0..<middle : middle..<chunk.count
                    try positional.write(UnsafeRawBufferPointer(rebasing: chunk[half]), at: offset + half.lowerBound)
                } else {
                    try sink.write(chunk)
                }
            } catch {
                if part == 1 { firstFailure = error } else { secondFailure = error }
            }
        }
    }

    /// Calls `body` with the file's bytes, chunk by chunk.
    static func stream(_ path: String, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        // Core's one plain reader: a FIFO or device would block `open`/`read` forever,
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
