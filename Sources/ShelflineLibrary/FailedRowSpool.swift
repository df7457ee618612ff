#if canImport(Glibc)
import Glibc
#endif
import ShelflineCore

/// The rows of an export, spooled to a scratch file while merge reads the import and read back
/// once the library is folded, so merge's memory does not grow with the number of rows: held in
/// an array, 2,000,000 not-enriched rows cost about 400 MB (bench/orchestrator scaling run).
/// Line format: `[line,byteOffset,byteLength,"<16 hex book id>","reason","fallback text"]`.
final class FailedRowSpool {
    let path: String
    private var descriptor: Int32
    private var buffer: [UInt8] = []
    private static let flushSize = 1 << 16

    init(path: String) throws {
        self.path = path
        descriptor = open(path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw FileError.cannotCreate(path: path, reason: systemErrorMessage()) }
    }

    deinit { if descriptor >= 0 { Glibc.close(descriptor) } }

    func append(_ row: FailedRow) throws {
        buffer.append(UInt8(ascii: "["))
        for number in [row.line, row.byteOffset, row.byteLength] {
            buffer.append(contentsOf: String(number).utf8)
            buffer.append(UInt8(ascii: ","))
        }
        JSONString.append(row.bookId.map { String($0, radix: 16).leftPadded(to: 16) } ?? "", to: &buffer)
        buffer.append(UInt8(ascii: ","))
        JSONString.append(row.reason, to: &buffer)
        buffer.append(UInt8(ascii: ","))
        JSONString.append(row.fallbackText, to: &buffer)
        buffer.append(contentsOf: "]\n".utf8)
        if buffer.count >= Self.flushSize { try flush() }
    }

    private func flush() throws {
        try buffer.withUnsafeBytes { try writeAll($0, to: descriptor, path: path) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes and closes; `forEach` reads the rows back in the order they were appended.
    func close() throws {
        try flush()
        Glibc.close(descriptor)
        descriptor = -1
    }

    func forEach(_ body: (FailedRow) throws -> Void) throws {
        try Self.readBack(path: path, body)
    }

    static func readBack(path: String, _ body: (FailedRow) throws -> Void) throws {
        try LineReader.forEachLine(path: path) { line, number in
            var scanner = JSONScanner(line)
            func comma() -> Bool { scanner.take(UInt8(ascii: ",")) }
            guard scanner.take(UInt8(ascii: "[")), let line = scanner.int(), comma(), let offset = scanner.int(), comma(),
                  let length = scanner.int(), comma(), let id = scanner.string(), comma(), let reason = scanner.string(),
                  comma(), let fallback = scanner.string(), scanner.take(UInt8(ascii: "]"))
            else { throw FileError.corrupt(path: path, line: number, reason: "scratch row is damaged") }
            try body(FailedRow(line: line, byteOffset: offset, byteLength: length, reason: reason, fallbackText: fallback,
                               bookId: id.isEmpty ? nil : UInt64(id, radix: 16)))
        }
    }
}
