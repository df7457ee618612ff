import Dispatch
import Foundation

/// Hex SHA-256 content hashes: what the orchestrator fingerprints and run ids are made of.
public enum ContentHash {
    /// Through Core's one plain reader: a FIFO or device would block forever, so it refuses them (66).
    public static func file(_ path: String) throws -> String {
        var hasher = SHA256()
        try PlainFileReader(path: path).forEachChunk { hasher.update(bufferPointer: $0) }
        return hex(hasher.finalize())
    }

    /// Copies `source` to `target` atomically, hashing as it goes; a hash other than `expected`
    /// (the source changed since it was hashed) publishes nothing.
    public static func copy(_ source: String, to target: String, expected: String, permissions: mode_t = 0o644) throws {
        let file = try AtomicFile(path: target, permissions: permissions)
        guard try copy(source, into: file) == expected else {
            file.abandon()
            throw FileError.io(path: source, reason: "file changed while being imported; try again")
        }
        try file.commit()
    }

    /// Writes `source`'s bytes to `sink` in one read and returns their hex SHA-256 (for a copy
    /// whose place depends on the hash).
    ///
    /// Each chunk is hashed and written at once while the next is read (`ReadAhead`), since every
    /// import's first stage waits for the copy (docs/performance.md). Every thread reads the same
    /// chunk, so the hash is of the bytes written. A `PositionalByteSink` gets each half of a chunk
    /// from its own thread: writing into cold pages cost twice the hash, and goes as fast on two
    /// cores as the hash on one.
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

    /// One chunk of `copy`: part 0 hashes it, the others write it (in halves when the sink is
    /// positional). Each part touches only its own state; the rest changes between chunks.
    private final class CopyStep: @unchecked Sendable {
        var hasher = SHA256()
        let sink: any ByteSink
        let positional: (any PositionalByteSink)?
        var chunk = UnsafeRawBufferPointer(start: nil, count: 0)
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

    public static func bytes(_ data: some DataProtocol) -> String {
        hex(SHA256.hash(data: data))
    }

    /// Of the UTF-8.
    public static func string(_ text: String) -> String {
        bytes(Data(text.utf8))
    }

    static func hex(_ digest: some Sequence<UInt8>) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
