import CLibdeflate
import CZlib
import Dispatch
import Foundation

/// Streams bytes into gzip, compressing fixed-size chunks on all cores and writing them to the sink
/// from there, in order: the caller's thread only copies its bytes in.
///
/// Each chunk becomes its own gzip member; concatenated members are one valid gzip file (RFC 1952
/// §2.2) that `gunzip` and `GzipReader` read as a single stream. Chunk boundaries depend only on the
/// byte count, and libdeflate's gzip header carries no timestamp or name, so the same input always gives
/// byte-identical output. Memory is bounded by `(inFlight + 1) × chunkSize` whatever the input size.
public final class GzipWriter: ByteSink {
    /// Default level for intermediates between stages: speed over size.
    public static let intermediateLevel: Int32 = 1
    /// Default level for the persistent library (merge's `libraryLevel`): 1. Compressing the library
    /// is most of merge's second pass, which keeps both cores busy, so each CPU second saved there is
    /// wall time of every import: level 1 trades a library about 8 % larger for it (each level's
    /// figures: docs/performance.md). Reading it back costs the same at any level.
    public static let libraryLevel: Int32 = 1

    private let level: Int32
    private let chunkSize: Int
    private let pipeline: ChunkPipeline
    /// The chunk being filled; nil until the next byte arrives after a chunk was handed off.
    private var current: ChunkSlot?
    private var submitted = 0

    /// `threads`: how many chunks are compressed at once, in the background, while the next one
    /// fills. Each is one reused slot (its input, its output and its compressor): the writer never
    /// allocates per chunk, so its memory stays at `(threads + 1)` slots whatever the output size.
    public init(
        sink: any ByteSink, path: String, level: Int32 = GzipWriter.intermediateLevel, chunkSize: Int = 1 << 20,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount
    ) {
        self.level = level
        self.chunkSize = chunkSize
        pipeline = ChunkPipeline(sink: sink, path: path, slots: max(1, threads) + 1, chunkSize: chunkSize)
    }

    /// Waits for the chunks still compressing and drops them unwritten (a writer dropped after an
    /// error: nothing reaches the sink once its owner may tear it down).
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

    /// One byte (a line's newline), without building a buffer for it.
    public func write(byte: UInt8) throws {
        let slot = try currentSlot()
        slot.input.storeBytes(of: byte, toByteOffset: slot.count, as: UInt8.self)
        slot.count += 1
        if slot.count == chunkSize { submitCurrent() }
    }

    /// Stops: waits for the chunks in flight and writes nothing more to the sink, which the caller
    /// may then abandon.
    public func discard() { pipeline.discard() }

    /// Compresses what is buffered and writes every member to the sink. Call once, at the end.
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

/// The chunks of one `GzipWriter` between the caller and the sink: each is compressed on a
/// background queue and written to the sink by whichever worker finishes the chunk before it,
/// in the order they were handed off, so the caller's thread neither compresses nor writes.
///
/// Chunk `n` always uses slot `n % slots.count`: chunks are written and their slots freed in
/// order, so when `acquire` gets past the semaphore that slot is the free one.
private final class ChunkPipeline: @unchecked Sendable {
    private let sink: any ByteSink
    private let path: String
    private let slots: [ChunkSlot]
    private let free: DispatchSemaphore
    private let inFlight = DispatchGroup()
    // Guarded by `lock`: compressed chunks waiting for their turn, whose turn it is, whether a
    // worker is writing, the first failure, and whether the owner has gone.
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
        // Started at 0 and raised: libdispatch traps when a semaphore is freed below the value it
        // was created with, as it is when a writer is dropped on an error with a slot taken.
        free = DispatchSemaphore(value: 0)
        for _ in 0..<count { free.signal() }
    }

    /// The slot for chunk `sequence`, once it is free (waits while every slot is in flight).
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

    /// Queues `slot` for writing; the worker that finds it is chunk `nextToWrite`'s turn writes it
    /// and every chunk after it already compressed, while the others return at once.
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

/// One chunk's buffers and compressor, reused for every chunk that takes this slot. Filled by the
/// writer's caller, then compressed and written by a worker; `ChunkPipeline`'s semaphore and
/// queue hand it from one to the other.
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

    /// Compresses with libdeflate rather than zlib: on 1 MiB chunks of parse output (122 MB of
    /// NDJSON, this machine) zlib level 1 took 1.02 s and gave 35.1 MB; libdeflate level 1 took
    /// 0.49 s and gave 32.3 MB. Compression is about half of parse's CPU time, so this is the
    /// single largest saving. Reading stays on zlib, which verifies every member's trailer.
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
