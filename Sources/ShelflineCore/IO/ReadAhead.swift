import Foundation

/// A `Prefetcher` of chunks (a stage inflates its input on one core while it works on the other),
/// each copied into a buffer the consumer handed back, so a file of any size costs a few
/// allocations and `depth` chunks of memory. The producer has ended when `forEachChunk` returns.
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
