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
