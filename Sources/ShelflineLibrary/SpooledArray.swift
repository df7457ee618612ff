import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// An append-only array of fixed-size values: the newest 64Ki in memory, the rest in an unlinked scratch file
/// read (or rewritten) one at a time. Why: the resolver's ids are uniform hashes, in memory 15 MB of dedupe's
/// and merge's peaks at 2,000,000 rows, and one is read again only when a later row finds its book.
final class SpooledArray<Element: BitwiseCopyable> {
    private static var chunk: Int { 1 << 16 }
    private static var stride: Int { MemoryLayout<Element>.stride }
    private let descriptor: Int32
    /// For error messages: the file has no name once unlinked.
    let path: String
    private var tail: [Element] = []
    /// A multiple of the chunk size.
    private var written = 0

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
        // At the file's position: `pread` and `pwrite` do not move it.
        do {
            try tail.withUnsafeBytes { try writeAll($0, to: descriptor, path: path) }
        } catch FileError.io(_, let reason) {
            throw LibraryError.scratchIO(path: path, reason: reason)
        }
        written += tail.count
        tail.removeAll(keepingCapacity: true)
    }

    func value(_ number: Int) throws -> Element {
        precondition(number >= 0 && number < count, "spooled array: value \(number) of \(count)")
        if number >= written { return tail[number - written] }
        return try withUnsafeTemporaryAllocation(of: Element.self, capacity: 1) { buffer in
            try transfer(number, UnsafeMutableRawBufferPointer(buffer), write: false)
            return buffer[0]
        }
    }

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
