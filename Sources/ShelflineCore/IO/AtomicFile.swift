import CSystemShims
import Foundation

/// An atomic file, or anything a test wants to capture.
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

/// A sink that also takes bytes at an offset, from several threads for ranges that do not overlap.
public protocol PositionalByteSink: ByteSink {
    /// Not mixed with `write(_:)`, which appends after what it wrote.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws
}

/// The only way Shelfline writes a file: a temporary beside the target, checked writes, fsync,
/// rename, fsync of the directory. On any error, or dropped uncommitted, the temporary is removed;
/// a target that is not a regular file is never replaced (73). A killed process's temporary
/// (`.NAME.tmp-PID-XXXXXX`) is removed by the next `AtomicFile` in that directory.
public final class AtomicFile: PositionalByteSink {
    public let path: String
    private let temporaryPath: String
    private var descriptor: Int32
    private var committed = false
    private var buffer: [UInt8] = []
    private static let bufferLimit = 1 << 18
    private var bytesWritten = 0
    private var writebackRequested = 0
    private static let writebackStep = 8 << 20

    /// Throws `FileError.cannotCreate` if the directory is missing or not writable, or the target
    /// exists and is not a regular file.
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

    /// Also starts their writeback. An error leaves the file to the caller to abandon: it is not
    /// torn down from a writing thread.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
        try ShelflineCore.writeAll(bytes, to: descriptor, path: path, at: offset)
        _ = shelfline_start_writeback(descriptor, Int64(offset), Int64(bytes.count))
    }

    public func commit() throws {
        try commit(to: path)
    }

    /// `commit()` under a name known only once the bytes are written (named by their hash), on the
    /// same file system; refused, like `path`, when it exists and is not a regular file.
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

    /// Starts writeback without waiting, so `commit`'s fsync waits for the last few megabytes, not the
    /// whole file (measured: docs/performance.md). A file system that refuses is only slower at `commit`.
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

    public static func write(_ bytes: some Collection<UInt8>, to path: String, permissions: mode_t = 0o644) throws {
        let file = try AtomicFile(path: path, permissions: permissions)
        try file.write(Array(bytes))
        try file.commit()
    }

    public static func write(_ string: String, to path: String, permissions: mode_t = 0o644) throws {
        try write(Array(string.utf8), to: path, permissions: permissions)
    }
}
