import CZlib
import Dispatch
import Foundation

/// Streams bytes into gzip, compressing fixed-size chunks on all cores.
///
/// Each chunk becomes its own gzip member; concatenated members are one valid gzip file (RFC 1952
/// §2.2) that `gunzip` and `GzipReader` read as a single stream. Chunk boundaries depend only on the
/// byte count, and zlib's gzip header carries no timestamp or name, so the same input always gives
/// byte-identical output. Memory is bounded by `(inFlight + 1) × chunkSize` whatever the input size.
public final class GzipWriter {
    /// Default level for intermediates between stages: speed over size.
    public static let intermediateLevel: Int32 = 1
    /// Default level for the persistent library.
    public static let libraryLevel: Int32 = 6

    private let sink: any ByteSink
    private let level: Int32
    private let chunkSize: Int
    private let maxInFlight: Int
    private var pending: [CompressionJob] = []
    private var current: [UInt8]
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
        let job = CompressionJob(input: current, level: level)
        current = []
        current.reserveCapacity(chunkSize)
        wroteMember = true
        if maxInFlight == 1 {
            job.run()
            pending.append(job)
        } else {
            job.start()
            pending.append(job)
        }
        while pending.count > maxInFlight {
            try drainOldest()
        }
    }

    private func drainOldest() throws {
        let job = pending.removeFirst()
        job.wait()
        guard job.status == Z_OK else {
            throw FileError.io(path: path, reason: "zlib deflate failed (\(job.status))")
        }
        try sink.write(job.output)
    }
}

/// One chunk compressed into one gzip member, on a background queue.
private final class CompressionJob: @unchecked Sendable {
    // Written by `run()` before `done` is signalled, read by the owner only after `wait()`.
    let input: [UInt8]
    let level: Int32
    var output: [UInt8] = []
    var status: Int32 = Z_OK
    private let done = DispatchSemaphore(value: 0)

    init(input: [UInt8], level: Int32) {
        self.input = input
        self.level = level
    }

    func start() {
        DispatchQueue.global(qos: .userInitiated).async { self.run() }
    }

    func wait() { done.wait() }

    func run() {
        defer { done.signal() }
        var stream = z_stream()
        // windowBits 15 + 16: a gzip wrapper with zlib's default header (mtime 0, no name).
        status = deflateInit2_(
            &stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { return }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(input.count))) + 32
        output = [UInt8](repeating: 0, count: bound)
        var result: Int32 = Z_OK
        input.withUnsafeBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                stream.next_in = UnsafeMutablePointer(mutating: inBuf.baseAddress)
                stream.avail_in = uInt(inBuf.count)
                stream.next_out = outBuf.baseAddress
                stream.avail_out = uInt(outBuf.count)
                result = deflate(&stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else {
            status = result == Z_OK ? Z_BUF_ERROR : result
            return
        }
        output.removeSubrange(Int(stream.total_out)...)
        status = Z_OK
    }
}
