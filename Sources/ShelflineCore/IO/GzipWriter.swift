import CLibdeflate
import CZlib
import Dispatch
import Foundation

/// Streams bytes into gzip, compressing fixed-size chunks on all cores and writing them to the sink
/// in order: the caller's thread only copies its bytes in. Each chunk is its own gzip member (one
/// valid file, RFC 1952 §2.2); boundaries depend only on the byte count and libdeflate's header has
/// no timestamp or name, so the same input gives the same bytes.
public final class GzipWriter: ByteSink {
    /// Intermediates between stages: speed over size.
    public static let intermediateLevel: Int32 = 1
    /// Compressing the library is most of merge's second pass, on both cores, so CPU saved there is
    /// wall time: level 1 for a library about 8 % larger (docs/performance.md). Reading costs the same.
    public static let libraryLevel: Int32 = 1

    private let level: Int32
    private let chunkSize: Int
    private let pipeline: ChunkPipeline
    /// Nil from a chunk's hand-off until the next byte arrives.
    private var current: ChunkSlot?
    private var submitted = 0

    /// `threads` chunks are compressed in the background while the next fills, each in a reused slot:
    /// memory stays at `threads + 1` slots whatever the output size.
    public init(
        sink: any ByteSink, path: String, level: Int32 = GzipWriter.intermediateLevel, chunkSize: Int = 1 << 20,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount
    ) {
        self.level = level
        self.chunkSize = chunkSize
        pipeline = ChunkPipeline(sink: sink, path: path, slots: max(1, threads) + 1, chunkSize: chunkSize)
    }

    /// Drops the chunks still compressing unwritten: after an error, the owner may tear the sink down.
    deinit { pipeline.discard() }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard var start = bytes.baseAddress, !bytes.isEmpty else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let slot = try currentSlot()
            let take = min(remaining, chunkSize - slot.count)
            (slot.input + slot.count).copyMemory(from: start, byteCount: take)
            slot.count += take
            start += take
            remaining -= take
            if slot.count == chunkSize { submitCurrent() }
        }
    }

    /// A line's newline, without building a buffer for it.
    public func write(byte: UInt8) throws {
        let slot = try currentSlot()
        slot.input.storeBytes(of: byte, toByteOffset: slot.count, as: UInt8.self)
        slot.count += 1
        if slot.count == chunkSize { submitCurrent() }
    }

    /// Waits for the chunks in flight and writes nothing more, so the caller may abandon the sink.
    public func discard() { pipeline.discard() }

    /// Call once, at the end.
    public func finish() throws {
        if current != nil || submitted == 0 {
            // An empty output is still one (empty) gzip member.
            _ = try currentSlot()
            submitCurrent()
        }
        pipeline.waitForAll()
        try pipeline.rethrow()
    }

    private func currentSlot() throws -> ChunkSlot {
        if let current { return current }
        try pipeline.rethrow()
        let slot = pipeline.acquire(sequence: submitted)
        slot.count = 0
        current = slot
        return slot
    }

    private func submitCurrent() {
        guard let slot = current else { return }
        current = nil
        pipeline.submit(slot, sequence: submitted, level: level)
        submitted += 1
    }
}

/// A `GzipWriter`'s chunks, each compressed on a background queue and written, in order, by
/// whichever worker finishes the chunk before it. Chunk `n` uses slot `n % slots.count`: slots are
/// freed in order, so past the semaphore that slot is the free one.
private final class ChunkPipeline: @unchecked Sendable {
    private let sink: any ByteSink
    private let path: String
    private let slots: [ChunkSlot]
    private let free: DispatchSemaphore
    private let inFlight = DispatchGroup()
    // `lock` guards all below.
    private let lock = NSLock()
    private var compressed: [Int: ChunkSlot] = [:]
    private var nextToWrite = 0
    private var writing = false
    private var failure: (any Error)?
    private var discarded = false

    init(sink: any ByteSink, path: String, slots count: Int, chunkSize: Int) {
        self.sink = sink
        self.path = path
        slots = (0..<count).map { _ in ChunkSlot(capacity: chunkSize) }
        // Raised from 0: libdispatch traps when a semaphore is freed below its initial value, as it
        // is when a writer is dropped on an error with a slot taken.
        free = DispatchSemaphore(value: 0)
        for _ in 0..<count { free.signal() }
    }

    /// Waits while every slot is in flight.
    func acquire(sequence: Int) -> ChunkSlot {
        free.wait()
        return slots[sequence % slots.count]
    }

    func submit(_ slot: ChunkSlot, sequence: Int, level: Int32) {
        inFlight.enter()
        DispatchQueue.global(qos: .userInitiated).async {
            slot.compress(level: level)
            self.written(slot, sequence: sequence)
        }
    }

    /// The worker that finds it is `nextToWrite`'s turn writes it and every compressed chunk after
    /// it; the others return at once.
    private func written(_ slot: ChunkSlot, sequence: Int) {
        lock.lock()
        compressed[sequence] = slot
        guard !writing else {
            lock.unlock()
            return
        }
        writing = true
        while let next = compressed.removeValue(forKey: nextToWrite) {
            let skip = failure != nil || discarded
            lock.unlock()
            var error: (any Error)?
            if !skip {
                do { try next.writeOutput(to: sink, path: path) } catch let thrown { error = thrown }
            }
            lock.lock()
            if failure == nil { failure = error }
            nextToWrite += 1
            free.signal()
            inFlight.leave()
        }
        writing = false
        lock.unlock()
    }

    func waitForAll() { inFlight.wait() }

    func rethrow() throws {
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw failure }
    }

    func discard() {
        lock.lock()
        discarded = true
        lock.unlock()
        inFlight.wait()
    }
}

/// One chunk's buffers and compressor, reused: filled by the caller, compressed and written by a worker.
private final class ChunkSlot: @unchecked Sendable {
    let input: UnsafeMutableRawPointer
    var count = 0
    private var output: UnsafeMutableRawPointer?
    private var outputCapacity = 0
    private var outputCount = 0
    private var compressor: OpaquePointer?
    private var status: Int32 = Z_OK

    /// Only the pages a chunk fills are ever touched: a small output costs little memory.
    init(capacity: Int) {
        input = .allocate(byteCount: max(1, capacity), alignment: 16)
    }

    deinit {
        input.deallocate()
        output?.deallocate()
        if let compressor { libdeflate_free_compressor(compressor) }
    }

    /// libdeflate, not zlib: on 1 MiB chunks of 122 MB of NDJSON at level 1, 0.49 s for 32.3 MB
    /// against zlib's 1.02 s for 35.1 MB; compression is about half of parse's CPU.
    func compress(level: Int32) {
        if compressor == nil { compressor = libdeflate_alloc_compressor(level) }
        guard let compressor else {
            status = Z_MEM_ERROR
            return
        }
        let bound = libdeflate_gzip_compress_bound(compressor, count)
        if outputCapacity < bound {
            output?.deallocate()
            output = .allocate(byteCount: bound, alignment: 16)
            outputCapacity = bound
        }
        outputCount = libdeflate_gzip_compress(compressor, input, count, output, outputCapacity)
        status = outputCount > 0 ? Z_OK : Z_BUF_ERROR
    }

    func writeOutput(to sink: any ByteSink, path: String) throws {
        guard status == Z_OK else {
            throw FileError.io(path: path, reason: "gzip compression failed (\(status))")
        }
        try sink.write(UnsafeRawBufferPointer(start: output, count: outputCount))
    }
}
