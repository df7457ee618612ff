import CLibdeflate
import CZlib
import Dispatch
import Foundation

/// Streams bytes into gzip, compressing fixed-size chunks on all cores.
///
/// Each chunk becomes its own gzip member; concatenated members are one valid gzip file (RFC 1952
/// §2.2) that `gunzip` and `GzipReader` read as a single stream. Chunk boundaries depend only on the
/// byte count, and libdeflate's gzip header carries no timestamp or name, so the same input always gives
/// byte-identical output. Memory is bounded by `(inFlight + 1) × chunkSize` whatever the input size.
public final class GzipWriter {
    /// Default level for intermediates between stages: speed over size.
    public static let intermediateLevel: Int32 = 1
    /// Default level for the persistent library (merge's `libraryLevel`): 1. libdeflate on the
    /// corpus-shaped 200,000-book library (299 MB of JSON, 1 MiB members, CPU seconds on one core /
    /// MB): level 1 1.18 / 87.6, 2 1.58 / 85.8, 3 1.81 / 83.3, 4 1.96 / 81.3, 5 2.36 / 79.4, 6 2.80 /
    /// 78.4. Compressing the library is most of merge's second pass, which keeps both cores busy, so
    /// each CPU second saved there is wall time of every import (issue 25): 6 → 4 (stop 24) saved 0.84 s
    /// for 2.9 MB, 4 → 1 (stop 25) 0.78 s for 6.3 MB (+8 %). Reading it back costs the same at any level.
    public static let libraryLevel: Int32 = 1

    private let sink: any ByteSink
    private let level: Int32
    private let chunkSize: Int
    private let maxInFlight: Int
    private var pending: [CompressionJob] = []
    private var current: [UInt8]
    /// Buffers of written members, reused for the next chunks: a fresh megabyte a chunk is new pages
    /// to fault in (and, under merge's fixed mmap threshold, a mapping) every time.
    private var spare: (input: [UInt8], output: [UInt8])?
    private var wroteMember = false
    private let path: String

    public init(
        sink: any ByteSink, path: String, level: Int32 = GzipWriter.intermediateLevel, chunkSize: Int = 1 << 20,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount
    ) {
        self.sink = sink
        self.path = path
        self.level = level
        self.chunkSize = chunkSize
        self.maxInFlight = max(1, threads)
        current = []
        current.reserveCapacity(chunkSize)
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        var rest = bytes
        while current.count + rest.count >= chunkSize {
            let take = chunkSize - current.count
            current.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest[..<take]))
            rest = UnsafeRawBufferPointer(rebasing: rest[take...])
            try submitCurrent()
        }
        current.append(contentsOf: rest)
    }

    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    public func write(_ string: String) throws {
        var string = string
        try string.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }

    /// Compresses what is buffered and writes every member to the sink. Call once, at the end.
    public func finish() throws {
        if !current.isEmpty || !wroteMember {
            try submitCurrent()
        }
        while !pending.isEmpty {
            try drainOldest()
        }
    }

    private func submitCurrent() throws {
        // The oldest member is written first, so its buffers carry this chunk and no third pair is held.
        while pending.count >= maxInFlight {
            try drainOldest()
        }
        let job = CompressionJob(input: current, output: spare?.output ?? [], level: level)
        current = spare?.input ?? []
        spare = nil
        current.removeAll(keepingCapacity: true)
        current.reserveCapacity(chunkSize)
        wroteMember = true
        if maxInFlight == 1 {
            job.run()
            pending.append(job)
        } else {
            job.start()
            pending.append(job)
        }
    }

    private func drainOldest() throws {
        let job = pending.removeFirst()
        job.wait()
        guard job.status == Z_OK else {
            throw FileError.io(path: path, reason: "gzip compression failed (\(job.status))")
        }
        try job.output.withUnsafeBytes { try sink.write(UnsafeRawBufferPointer(rebasing: $0[..<job.written])) }
        spare = job.takeBuffers()
    }
}

/// One chunk compressed into one gzip member, on a background queue.
private final class CompressionJob: @unchecked Sendable {
    // Written by `run()` before `done` is signalled, read by the owner only after `wait()`.
    private(set) var input: [UInt8]
    let level: Int32
    /// Its first `written` bytes are the member.
    private(set) var output: [UInt8]
    private(set) var written = 0
    var status: Int32 = Z_OK
    private let done = DispatchSemaphore(value: 0)

    init(input: [UInt8], output: [UInt8], level: Int32) {
        self.input = input
        self.output = output
        self.level = level
    }

    /// The input and output buffers, for the writer's next chunk.
    func takeBuffers() -> (input: [UInt8], output: [UInt8]) {
        defer { (input, output) = ([], []) }
        return (input, output)
    }

    func start() {
        DispatchQueue.global(qos: .userInitiated).async { self.run() }
    }

    func wait() { done.wait() }

    /// Compresses with libdeflate rather than zlib: on 1 MiB chunks of parse output (122 MB of
    /// NDJSON, this machine) zlib level 1 took 1.02 s and gave 35.1 MB; libdeflate level 1 took
    /// 0.49 s and gave 32.3 MB. Compression is about half of parse's CPU time, so this is the
    /// single largest saving. Reading stays on zlib, which verifies every member's trailer.
    func run() {
        defer { done.signal() }
        guard let compressor = libdeflate_alloc_compressor(level) else {
            status = Z_MEM_ERROR
            return
        }
        defer { libdeflate_free_compressor(compressor) }
        let bound = libdeflate_gzip_compress_bound(compressor, input.count)
        if output.count < bound { output = [UInt8](repeating: 0, count: bound) }
        written = input.withUnsafeBytes { inBuf in
            output.withUnsafeMutableBytes { outBuf in
                libdeflate_gzip_compress(compressor, inBuf.baseAddress, inBuf.count, outBuf.baseAddress, outBuf.count)
            }
        }
        guard written > 0 else {
            status = Z_BUF_ERROR
            return
        }
        status = Z_OK
    }
}
