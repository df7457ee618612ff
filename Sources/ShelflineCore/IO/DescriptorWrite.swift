#if canImport(Glibc)
    import Glibc
#endif

/// Writes every byte, retrying short writes and `EINTR`. `at`: by `pwrite`, so several threads
/// may write ranges that do not overlap.
public func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String, at position: Int? = nil) throws {
    var offset = 0
    while offset < bytes.count {
        let pointer = bytes.baseAddress! + offset, count = bytes.count - offset
        let written = position.map { pwrite(descriptor, pointer, count, off_t($0 + offset)) } ?? write(descriptor, pointer, count)
        if written < 0 {
            if errno == EINTR { continue }
            throw FileError.io(path: path, reason: "write: \(systemErrorMessage())")
        }
        offset += written
    }
}
