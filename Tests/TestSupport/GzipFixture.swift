import Foundation
import ShelflineCore

/// gzip files for tests, written the way the stages write theirs (atomically, through
/// `GzipWriter`), so a test never carries its own copy of the writing code.
public enum GzipFixture {
    /// Writes `values` to `path` as gzip NDJSON, one per line.
    public static func write<Value: Encodable>(_ values: [Value], to path: String) throws {
        let writer = try NDJSONWriter<Value>(path: path)
        for value in values { try writer.append(value) }
        try writer.commit()
    }

    /// Writes `text` gzip-compressed to `path`; `chunkSize` starts a new gzip member every so many
    /// bytes (small values give multi-member files).
    @discardableResult
    public static func write(text: String, to path: String, chunkSize: Int = 1 << 20) throws -> String {
        try write(bytes: Array(text.utf8), to: path, chunkSize: chunkSize)
    }

    /// `write(text:)` for bytes that need not be UTF-8.
    @discardableResult
    public static func write(bytes: [UInt8], to path: String, chunkSize: Int = 1 << 20) throws -> String {
        let file = try AtomicFile(path: path)
        let writer = GzipWriter(sink: file, path: path, chunkSize: chunkSize)
        try writer.write(bytes)
        try writer.finish()
        try file.commit()
        return path
    }
}
