import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// A scratch file's bytes mapped read-only, unmapped when the last reference goes: pass 2 reads each
/// bucket once, so mapping it skips copying it into a fresh heap buffer, whose pages (a megabyte
/// or more a bucket) malloc faulted in anew or kept in the loading thread's arena afterwards.
final class MappedFile {
    let bytes: UnsafeRawBufferPointer

    init(path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw FileError.io(path: path, reason: "cannot read scratch bucket: \(systemErrorMessage())")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw FileError.io(path: path, reason: "cannot read scratch bucket: \(systemErrorMessage())")
        }
        let count = Int(info.st_size)
        guard count > 0 else {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            return
        }
        // MAP_POPULATE: the whole bucket is read, so its pages are mapped in one call, not faulted one by one.
        guard let base = mmap(nil, count, PROT_READ, MAP_PRIVATE | MAP_POPULATE, descriptor, 0), base != MAP_FAILED else {
            throw FileError.io(path: path, reason: "cannot map scratch bucket: \(systemErrorMessage())")
        }
        bytes = UnsafeRawBufferPointer(start: base, count: count)
    }

    deinit { if let base = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: base), bytes.count) } }
}
