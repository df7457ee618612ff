import Dispatch

/// The lines of a file, decoded on two threads while the caller consumes them in file order.
///
/// A thread of its own (`Prefetcher`) gathers lines into batches of about `batchBytes` (the file is
/// inflated on another, `GzipReader`) and decodes each batch's two halves at once; `body` gets every
/// decoded line with its bytes and number on the calling thread, in file order. Memory is a few
/// batches whatever the file size. A line `decode` refuses throws after `body` has had every line
/// before it, exactly as when decoding in line.
///
/// Decoding was about 40 % of dedupe and a quarter of merge (issue 12: `KeyedRecords`, its first
/// user), and most of render's single busy core on the library page (issue 25: the page's pass
/// over a 200,000-book library kept one core at 100 % and the other at a third).
public enum DecodedLines {
    /// A few hundred lines: large enough to make the hand-over cheap, small enough to stay in cache.
    public static let batchBytes = 1 << 18

    private struct Batch<Decoded> {
        var bytes: [UInt8] = []
        var lines: [(range: Range<Int>, number: Int)] = []
        var decoded: [Decoded] = []
        var failure: (any Error)?

        init(capacity: Int) { bytes.reserveCapacity(capacity + (1 << 12)) }
    }

    /// A batch's two halves, decoded at once: both threads read `batch`; each writes its own half.
    private final class Halves<Decoded>: @unchecked Sendable {
        let batch: Batch<Decoded>
        var first: (decoded: [Decoded], failure: (any Error)?) = ([], nil)
        var second: (decoded: [Decoded], failure: (any Error)?) = ([], nil)

        init(_ batch: Batch<Decoded>) { self.batch = batch }
    }

    /// `batch.lines[range]` decoded, up to the first line `decode` refuses, and its error.
    private static func decode<Decoded>(_ batch: Batch<Decoded>, _ range: Range<Int>,
                                        _ decode: (UnsafeRawBufferPointer, Int) throws -> Decoded)
        -> (decoded: [Decoded], failure: (any Error)?) {
        var decoded: [Decoded] = []
        decoded.reserveCapacity(range.count)
        do {
            try batch.bytes.withUnsafeBytes { all in
                for (lineRange, number) in batch.lines[range] {
                    decoded.append(try decode(UnsafeRawBufferPointer(rebasing: all[lineRange]), number))
                }
            }
            return (decoded, nil)
        } catch {
            return (decoded, error)
        }
    }

    /// Calls `body` with each non-empty line of `path` (`LineReader`'s lines) decoded by `decode`,
    /// with its bytes and 1-based line number.
    public static func forEach<Decoded>(
        path: String, compression: LineReader.Compression = .detect, batchBytes: Int = batchBytes,
        decode: @escaping @Sendable (UnsafeRawBufferPointer, Int) throws -> Decoded,
        _ body: (Decoded, UnsafeRawBufferPointer, Int) throws -> Void
    ) throws {
        let prefetcher = Prefetcher<Batch<Decoded>>(depth: 2) { emit in
            var batch = Batch<Decoded>(capacity: batchBytes)
            func decodeAndEmit() throws {
                let middle = batch.lines.count / 2
                let halves = Halves(batch)
                DispatchQueue.concurrentPerform(iterations: 2) { half in
                    if half == 0 {
                        halves.first = Self.decode(halves.batch, 0..<middle, decode)
                    } else {
                        halves.second = Self.decode(halves.batch, middle..<halves.batch.lines.count, decode)
                    }
                }
                batch.decoded = halves.first.decoded
                batch.failure = halves.first.failure
                if batch.failure == nil {
                    batch.decoded += halves.second.decoded
                    batch.failure = halves.second.failure
                }
                let failure = batch.failure
                try emit(batch)
                batch = Batch(capacity: batchBytes)
                if let failure { throw failure }
            }
            do {
                try LineReader.forEachLine(path: path, compression: compression) { bytes, number in
                    guard !bytes.isEmpty else { return }
                    let start = batch.bytes.count
                    batch.bytes.append(contentsOf: bytes)
                    batch.lines.append((start..<batch.bytes.count, number))
                    if batch.bytes.count >= batchBytes { try decodeAndEmit() }
                }
            } catch {
                // The lines read before a failure still reach the caller, then the error.
                if !batch.lines.isEmpty { try decodeAndEmit() }
                throw error
            }
            if !batch.lines.isEmpty { try decodeAndEmit() }
        }
        defer { prefetcher.stop() }
        while let batch = try prefetcher.next() {
            try batch.bytes.withUnsafeBytes { all in
                for (index, decoded) in batch.decoded.enumerated() {
                    let line = batch.lines[index]
                    try body(decoded, UnsafeRawBufferPointer(rebasing: all[line.range]), line.number)
                }
            }
            if let failure = batch.failure { throw failure }
        }
    }
}
