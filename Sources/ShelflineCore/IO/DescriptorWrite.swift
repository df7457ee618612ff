#if canImport(Glibc)
    import Glibc
#endif

/// Writes every byte to `descriptor`, retrying short writes and `EINTR`; a failure is
/// `FileError.io` naming `path`. `at`: written there (`pwrite`, the descriptor's offset untouched:
/// several threads may write ranges that do not overlap), rather than at the descriptor's offset.
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
