import CSystemShims
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A destination for bytes: an atomic file, or anything a test wants to capture.
public protocol ByteSink: AnyObject {
    func write(_ bytes: UnsafeRawBufferPointer) throws
}

extension ByteSink {
    public func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    public func write(_ string: String) throws {
        var string = string
        try string.withUTF8 { try write(UnsafeRawBufferPointer($0)) }
    }
}

/// A sink that also takes bytes at an offset, from several threads at once for ranges that do not
/// overlap (`ContentHash.copy`).
public protocol PositionalByteSink: ByteSink {
    /// Writes `bytes` at `offset`. Not mixed with `write(_:)`, which appends after what it wrote.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws
}

/// The only way Shelfline writes a file: a temporary file beside the target, checked writes, fsync,
/// rename over the target, fsync of the directory. Until `commit()` the target is untouched; on any
/// error, and if the value is dropped uncommitted, the temporary file is removed. A target that
/// exists and is not a regular file (a device node, a FIFO, a directory) is never replaced (73).
///
/// The temporary file is `.NAME.tmp-PID-XXXXXX`: a process killed before it could clean up (SIGKILL,
/// `SIGXFSZ`, power loss) leaves one behind, and the next `AtomicFile` in that directory removes the
/// temporaries of processes that no longer exist (`StaleTemporaryFiles`).
public final class AtomicFile: PositionalByteSink {
    public let path: String
    private let temporaryPath: String
    private var descriptor: Int32
    private var committed = false
    private var buffer: [UInt8] = []
    private static let bufferLimit = 1 << 18
    /// Bytes written so far, and how many of them the kernel was asked to start writing back.
    private var bytesWritten = 0
    private var writebackRequested = 0
    /// How much is written before writeback of it is started (`startWriteback`).
    private static let writebackStep = 8 << 20

    /// Creates the temporary file. Throws `FileError.cannotCreate` if the directory is missing or
    /// not writable, or the target exists and is not a regular file.
    public init(path: String, permissions: mode_t = 0o644) throws {
        self.path = path
        try StageFiles.refuseNonRegular(path)
        let directory = (path as NSString).deletingLastPathComponent
        let base = (path as NSString).lastPathComponent
        StaleTemporaryFiles.sweepOnce(directory: directory.isEmpty ? "." : directory)
        var template = Array(((directory.isEmpty ? "." : directory) + "/.\(base).tmp-\(getpid())-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw FileError.cannotCreate(path: path, reason: systemErrorMessage())
        }
        fchmod(fd, permissions)
        descriptor = fd
        temporaryPath = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        buffer.reserveCapacity(Self.bufferLimit)
    }

    deinit {
        if !committed { abandon() }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        if buffer.count + bytes.count > Self.bufferLimit {
            try flushBuffer()
        }
        if bytes.count >= Self.bufferLimit {
            try writeAll(bytes)
        } else {
            buffer.append(contentsOf: bytes)
        }
    }

    /// `pwrite`s `bytes` at `offset` and starts their writeback (`startWriteback`): safe from
    /// several threads at once for ranges that do not overlap. An error leaves the file to
    /// `commit`'s caller to abandon (the file is not shared state to tear down from here).
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
        try ShelflineCore.writeAll(bytes, to: descriptor, path: path, at: offset)
        _ = shelfline_start_writeback(descriptor, Int64(offset), Int64(bytes.count))
    }

    /// Flushes, fsyncs and renames the temporary file over the target, then fsyncs the directory.
    public func commit() throws {
        try commit(to: path)
    }

    /// `commit()` under `target` rather than the path the file was created for: a name known only
    /// once the bytes are written (a run directory named by their hash). `target` is on the same
    /// file system, and is refused, like the path at creation, when it exists and is not a regular file.
    public func commit(to target: String) throws {
        precondition(!committed, "AtomicFile committed twice")
        do {
            if target != path { try StageFiles.refuseNonRegular(target) }
            try flushBuffer()
            guard fsync(descriptor) == 0 else { throw FileError.io(path: path, reason: "fsync: \(systemErrorMessage())") }
            guard close(descriptor) == 0 else { throw FileError.io(path: path, reason: "close: \(systemErrorMessage())") }
            descriptor = -1
            guard rename(temporaryPath, target) == 0 else {
                throw FileError.cannotCreate(path: target, reason: "rename: \(systemErrorMessage())")
            }
            committed = true
            Self.syncDirectory(of: target)
        } catch {
            abandon()
            throw error
        }
    }

    /// Removes the temporary file; the target stays as it was.
    public func abandon() {
        if descriptor >= 0 {
            close(descriptor)
            descriptor = -1
        }
        if !committed {
            unlink(temporaryPath)
            committed = true  // nothing left to clean up
        }
    }

    private func flushBuffer() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        do {
            try ShelflineCore.writeAll(bytes, to: descriptor, path: path)
        } catch {
            abandon()
            throw error
        }
        bytesWritten += bytes.count
        if bytesWritten - writebackRequested >= Self.writebackStep { startWriteback() }
    }

    /// Asks the kernel to start writing what is written so far to disk, without waiting for it, so
    /// that `commit`'s fsync waits for the last few megabytes rather than the whole file: waiting for
    /// it all, a 200,000-row import's stages spend 0.23 s in fsync with nothing else to do. A
    /// file system that refuses is only slower at `commit`.
    private func startWriteback() {
        _ = shelfline_start_writeback(descriptor, Int64(writebackRequested), Int64(bytesWritten - writebackRequested))
        writebackRequested = bytesWritten
    }

    static func syncDirectory(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let fd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }

    /// Writes `bytes` to `path` atomically in one call.
    public static func write(_ bytes: some Collection<UInt8>, to path: String, permissions: mode_t = 0o644) throws {
        let file = try AtomicFile(path: path, permissions: permissions)
        try file.write(Array(bytes))
        try file.commit()
    }

    /// Writes a string to `path` atomically in one call.
    public static func write(_ string: String, to path: String, permissions: mode_t = 0o644) throws {
        try write(Array(string.utf8), to: path, permissions: permissions)
    }
}
