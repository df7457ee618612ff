import ShelflineCore

/// Streams the lines of a dump file, gzip (detected by its magic bytes) or plain, in constant memory:
/// Core's one line reader (`LineReader`).
enum DumpLineReader {
    static func forEachLine(path: String, _ body: (UnsafeRawBufferPointer, Int) throws -> Void) throws {
        try LineReader.forEachLine(path: path, compression: .detect, body)
    }
}
