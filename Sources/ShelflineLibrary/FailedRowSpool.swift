import ShelflineCore

/// The rows of an export, spooled to a scratch file while merge reads the import and read back
/// once the library is folded, so merge's memory does not grow with the number of rows: held in
/// an array, 2,000,000 not-enriched rows cost about 400 MB (bench/orchestrator scaling run).
/// Line format: `[line,byteOffset,byteLength,"<16 hex book id>","reason","fallback text"]`.
final class FailedRowSpool {
    private let scratch: ScratchWriter
    var path: String { scratch.path }

    init(path: String) throws {
        scratch = try ScratchWriter(path: path, flushSize: 1 << 16)
    }

    func append(_ row: FailedRow) throws {
        try scratch.append { buffer in
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
        }
    }

    /// Flushes and closes; `forEach` reads the rows back in the order they were appended.
    func close() throws { try scratch.close() }

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
