import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// A private scratch file, written through a buffer, read back later.
final class ScratchWriter {
    let path: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    private let flushSize: Int
    private var capacity: Int { flushSize + (1 << 12) }

    init(path: String, flushSize: Int = 1 << 15) throws {
        self.path = path
        self.flushSize = flushSize
        descriptor = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o600)
        // A flush's worth plus one entry, so appends rarely grow it.
        buffer.reserveCapacity(capacity)
        guard descriptor >= 0 else { throw FileError.cannotCreate(path: path, reason: systemErrorMessage()) }
    }

    deinit { if descriptor >= 0 { Glibc.close(descriptor) } }

    func append(_ entry: (inout [UInt8]) -> Void) throws {
        entry(&buffer)
        if buffer.count >= flushSize { try flush() }
    }

    func flush() throws {
        try buffer.withUnsafeBytes { try writeAll($0, to: descriptor, path: path) }
        // Kept grown by long texts, every bucket's buffer would add up in pass 1, which fills all at once.
        if buffer.capacity > 2 * capacity {
            buffer = []
            buffer.reserveCapacity(capacity)
        } else {
            buffer.removeAll(keepingCapacity: true)
        }
    }

    func close() throws {
        try flush()
        Glibc.close(descriptor)
        descriptor = -1
    }
}

/// A scratch file read back in order through one buffer: a spool may be too large to map or read whole.
final class ScratchReader {
    private let file: RegularFile
    private var block: [UInt8]
    private var start = 0, end = 0

    init(path: String, blockSize: Int = 1 << 16) throws {
        file = try RegularFile(path: path)
        block = [UInt8](repeating: 0, count: blockSize)
    }

    /// `body` with the next `count` bytes; nil at the end of the file, `damaged()` when it ends inside them.
    func next<Result>(_ count: Int, damaged: () -> any Error, _ body: (UnsafeRawBufferPointer) throws -> Result) throws
        -> Result?
    {
        if end - start < count {
            let kept = end - start
            if block.count < count { block += [UInt8](repeating: 0, count: count - block.count) }
            block.withUnsafeMutableBytes { _ = memmove($0.baseAddress!, $0.baseAddress! + start, kept) }
            (start, end) = (0, kept)
            while end < count {
                let read = try block.withUnsafeMutableBufferPointer { try file.read(into: .init(rebasing: $0[end...])) }
                if read == 0 { break }
                end += read
            }
            guard end >= count else {
                if end == 0 { return nil }
                throw damaged()
            }
        }
        defer { start += count }
        return try block.withUnsafeBytes { try body(.init(rebasing: $0[start..<(start + count)])) }
    }
}
