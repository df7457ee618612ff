#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ShelflineCore

/// The key resolver's book ids (8 bytes a book), numbered from 0: the newest 64Ki in memory, the
/// rest written to a scratch file and read back one at a time when a later row finds its book.
///
/// Why (issue 12): ids are uniform hashes, so nothing packs them, and held in memory they were
/// 15 MB of dedupe's and merge's 2,000,000-row peaks, which grew with every distinct book. A
/// book's id is read again only when a later row resolves to it (a duplicate, a book already in
/// the library), one `pread` each. The file is unlinked as soon as it is open: nothing is left
/// behind whatever ends the process, and its pages are the kernel's cache, not the stage's memory.
final class BookIdFile {
    private static let chunkBits = 16
    private let descriptor: Int32
    /// Where the file was made, for error messages (it has no name once unlinked).
    let path: String
    private var tail: [UInt64] = []
    /// Ids written to the file (a multiple of the chunk size).
    private var written = 0

    /// A new, empty file in `directory` (a unique name, `mkstemp`'s).
    init(directory: String) throws {
        var template = Array((directory + "/.book-ids-XXXXXX").utf8CString)
        descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard descriptor >= 0 else { throw FileError.cannotCreate(path: path, reason: systemErrorMessage()) }
        unlink(path)
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        tail.reserveCapacity(1 << Self.chunkBits)
    }

    deinit { close(descriptor) }

    var count: Int { written + tail.count }

    func append(_ id: UInt64) throws {
        tail.append(id)
        guard tail.count == 1 << Self.chunkBits else { return }
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

    /// Book `number`'s id.
    func id(_ number: Int) throws -> UInt64 {
        precondition(number >= 0 && number < count, "book ids: book \(number) of \(count)")
        if number >= written { return tail[number - written] }
        var id: UInt64 = 0
        while true {
            let done = withUnsafeMutableBytes(of: &id) { pread(descriptor, $0.baseAddress, 8, off_t(number * 8)) }
            if done < 0 && errno == EINTR { continue }
            guard done == 8 else {
                throw LibraryError.scratchIO(path: path, reason: done < 0 ? "read: \(systemErrorMessage())" : "read: short read")
            }
            return id
        }
    }
}
