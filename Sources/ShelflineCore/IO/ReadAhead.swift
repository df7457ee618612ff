import Foundation

/// Runs a chunk producer (decompression) on its own thread while the caller consumes the chunks, so
/// a stage inflates its input on one core while it works on the other: a `Prefetcher`
/// of byte buffers, each copied into a buffer the consumer handed back, so a file of any size costs
/// the same few allocations.
///
/// At most `depth` chunks (at least 3) are in flight: memory is bounded by `depth × chunk size`
/// whatever the file size. The producer's error reaches the consumer after every chunk it produced
/// before it; an error thrown by the consumer stops the producer. Either way the producer thread has
/// ended when `forEachChunk` returns, so the file it reads is closed.
enum ReadAhead {
    /// Buffers the consumer is done with, for the producer to fill again.
    private final class Recycled: @unchecked Sendable {
        private let lock = NSLock()
        private var buffers: [[UInt8]] = []

        func take() -> [UInt8] {
            var buffer = lock.withLock { buffers.popLast() } ?? []
            buffer.removeAll(keepingCapacity: true)
            return buffer
        }

        func give(_ buffer: [UInt8]) {
            lock.withLock { buffers.append(buffer) }
        }
    }

    /// Calls `body` on the calling thread with each chunk `produce` hands out on its own thread.
    static func forEachChunk(
        depth: Int = 3,
        produce: @escaping @Sendable (_ emit: (UnsafeRawBufferPointer) throws -> Void) throws -> Void,
        _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let recycled = Recycled()
        // In flight: the queue, the chunk the producer fills and the one `body` reads.
        let prefetcher = Prefetcher<[UInt8]>(depth: max(1, depth - 2)) { emit in
            try produce { bytes in
                var buffer = recycled.take()
                buffer.append(contentsOf: bytes)
                try emit(buffer)
            }
        }
        defer { prefetcher.stop() }
        while let chunk = try prefetcher.next() {
            try chunk.withUnsafeBytes { try body($0) }
            recycled.give(chunk)
        }
    }
}
