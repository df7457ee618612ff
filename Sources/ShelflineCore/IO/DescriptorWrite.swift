#if canImport(Glibc)
import Glibc
#endif

/// Writes every byte to `descriptor`, retrying short writes and `EINTR`; a failure is
/// `FileError.io` naming `path`.
public func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String) throws {
    var offset = 0
    while offset < bytes.count {
        let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            throw FileError.io(path: path, reason: "write: \(systemErrorMessage())")
        }
        offset += written
    }
}
