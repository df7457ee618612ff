import Foundation

/// Runs a chunk producer (decompression) on its own thread while the caller consumes the chunks, so
/// a stage inflates its input on one core while it works on the other (issue 12).
///
/// At most `depth` chunks are in flight: memory is bounded by `depth × chunk size` whatever the file
/// size. The producer's error reaches the consumer after every chunk it produced before it; an error
/// thrown by the consumer stops the producer. Either way the producer thread has ended when
/// `forEachChunk` returns, so the file it reads is closed.
final class ReadAhead: @unchecked Sendable {
    // Every mutable member is guarded by `condition`.
    private let condition = NSCondition()
    private var filled: [[UInt8]] = []
    private var free: [[UInt8]]
    private var producerDone = false
    private var producerError: (any Error)?
    private var stopped = false
    private let finished = DispatchSemaphore(value: 0)

    private struct Stopped: Error {}

    private init(depth: Int) {
        free = Array(repeating: [], count: max(1, depth))
    }

    /// Calls `body` on the calling thread with each chunk `produce` hands out on its own thread.
    static func forEachChunk(depth: Int = 3,
                             produce: @escaping @Sendable (_ emit: (UnsafeRawBufferPointer) throws -> Void) throws -> Void,
                             _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let pipe = ReadAhead(depth: depth)
        let thread = Thread { pipe.run(produce) }
        thread.stackSize = 1 << 20
        thread.start()
        defer { pipe.finished.wait() }
        do {
            while let chunk = pipe.next() {
                try chunk.withUnsafeBytes { try body($0) }
                pipe.recycle(chunk)
            }
        } catch {
            pipe.stop()
            throw error
        }
        if let error = pipe.condition.withLock({ pipe.producerError }) { throw error }
    }

    private func run(_ produce: (_ emit: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) {
        defer { finished.signal() }
        var failure: (any Error)?
        do {
            try produce { bytes in
                condition.lock()
                while free.isEmpty && !stopped { condition.wait() }
                if stopped {
                    condition.unlock()
                    throw Stopped()
                }
                var buffer = free.removeLast()
                condition.unlock()
                buffer.removeAll(keepingCapacity: true)
                buffer.append(contentsOf: bytes)
                condition.withLock {
                    filled.append(buffer)
                    condition.broadcast()
                }
            }
        } catch is Stopped {
        } catch {
            failure = error
        }
        condition.withLock {
            producerError = failure
            producerDone = true
            condition.broadcast()
        }
    }

    /// The next chunk, or nil after the last one (or when the producer failed).
    private func next() -> [UInt8]? {
        condition.lock()
        defer { condition.unlock() }
        while filled.isEmpty && !producerDone { condition.wait() }
        return filled.isEmpty ? nil : filled.removeFirst()
    }

    private func recycle(_ chunk: [UInt8]) {
        condition.withLock {
            free.append(chunk)
            condition.broadcast()
        }
    }

    private func stop() {
        condition.withLock {
            stopped = true
            condition.broadcast()
        }
    }
}
