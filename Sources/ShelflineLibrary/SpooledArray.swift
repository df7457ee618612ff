import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// An append-only array of fixed-size values numbered from 0: the newest 64Ki in memory, the rest
/// written to a scratch file and read back (or rewritten) one at a time with `pread`/`pwrite`.
///
/// Why: the key resolver's book ids are uniform hashes, so nothing packs them, and held in memory
/// they would be 15 MB of dedupe's and merge's 2,000,000-row peaks, growing with every distinct
/// book. A book's id (or its title node) is read again only when a later row
/// finds it (a duplicate, a book already in the library). The file is unlinked as soon as it is
/// open: nothing is left behind whatever ends the process, and its pages are the kernel's cache,
/// not the stage's memory.
final class SpooledArray<Element: BitwiseCopyable> {
    private static var chunk: Int { 1 << 16 }
    private static var stride: Int { MemoryLayout<Element>.stride }
    private let descriptor: Int32
    /// Where the file was made, for error messages (it has no name once unlinked).
    let path: String
    private var tail: [Element] = []
    /// Values written to the file (a multiple of the chunk size).
    private var written = 0

    /// A new, empty file in `directory` (a unique name, `mkstemp`'s).
    init(directory: String) throws {
        var template = Array((directory + "/.book-ids-XXXXXX").utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard descriptor >= 0 else { throw FileError.cannotCreate(path: path, reason: systemErrorMessage()) }
        unlink(path)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        tail.reserveCapacity(Self.chunk)
    }

    deinit { close(descriptor) }

    var count: Int { written + tail.count }

    func append(_ value: Element) throws {
        tail.append(value)
        guard tail.count == Self.chunk else { return }
        // Appended in order, so the file's position is where the chunk goes (`pread` does not move it).
        do {
            try tail.withUnsafeBytes { try writeAll($0, to: descriptor, path: path) }
        } catch FileError.io(_, let reason) {
            // Not `FileError.io`: the library scan reads that as a damaged library.
            throw LibraryError.scratchIO(path: path, reason: reason)
        }
        written += tail.count
        tail.removeAll(keepingCapacity: true)
    }

    /// Value `number`.
    func value(_ number: Int) throws -> Element {
        precondition(number >= 0 && number < count, "spooled array: value \(number) of \(count)")
        if number >= written { return tail[number - written] }
        return try withUnsafeTemporaryAllocation(of: Element.self, capacity: 1) { buffer in
            try transfer(number, UnsafeMutableRawBufferPointer(buffer), write: false)
            return buffer[0]
        }
    }

    /// Replaces value `number`.
    func set(_ number: Int, _ value: Element) throws {
        precondition(number >= 0 && number < count, "spooled array: value \(number) of \(count)")
        if number >= written {
            tail[number - written] = value
            return
        }
        var copy = value
        try withUnsafeMutableBytes(of: &copy) { try transfer(number, $0, write: true) }
    }

    private func transfer(_ number: Int, _ bytes: UnsafeMutableRawBufferPointer, write: Bool) throws {
        let offset = off_t(number * Self.stride), size = Self.stride
        while true {
            let done =
                write ? pwrite(descriptor, bytes.baseAddress, size, offset) : pread(descriptor, bytes.baseAddress, size, offset)
            if done < 0 && errno == EINTR { continue }
            guard done == size else {
                let what = write ? "write" : "read"
                throw LibraryError.scratchIO(
                    path: path, reason: done < 0 ? "\(what): \(systemErrorMessage())" : "\(what): short \(what)")
            }
            return
        }
    }
}
