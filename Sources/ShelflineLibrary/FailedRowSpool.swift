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
            // The id as a JSON string of hex digits (nothing to escape), without a String per row.
            buffer.append(UInt8(ascii: "\""))
            if let id = row.bookId { BookKeys.appendHex(id, to: &buffer) }
            buffer.append(UInt8(ascii: "\""))
            buffer.append(UInt8(ascii: ","))
            JSONString.append(row.reason, to: &buffer)
            buffer.append(UInt8(ascii: ","))
            JSONString.append(row.fallbackText, to: &buffer)
            buffer.append(contentsOf: "]\n".utf8)
        }
    }

    /// Flushes and closes; `forEach` reads the rows back in the order they were appended.
    func close() throws { try scratch.close() }

    /// Calls `body` with each row, in order; the rows are read back and parsed a batch ahead on a
    /// thread of their own (measured: reading back is half of merge's not-enriched export, which
    /// nothing else overlaps).
    func forEach(_ body: (FailedRow) throws -> Void) throws {
        let path = path
        let reader = Prefetcher<[FailedRow]>(depth: 2) { emit in
            var batch: [FailedRow] = []
            try Self.readBack(path: path) { row in
                batch.append(row)
                if batch.count == 1024 {
                    try emit(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if !batch.isEmpty { try emit(batch) }
        }
        defer { reader.stop() }
        while let batch = try reader.next() {
            for row in batch { try body(row) }
        }
    }

    static func readBack(path: String, _ body: (FailedRow) throws -> Void) throws {
        try LineReader.forEachLine(path: path) { line, number in
            var scanner = JSONScanner(line)
            func comma() -> Bool { scanner.take(UInt8(ascii: ",")) }
            guard scanner.take(UInt8(ascii: "[")), let line = scanner.int(), comma(), let offset = scanner.int(), comma(),
                let length = scanner.int(), comma(), let id = scanner.string(), comma(), let reason = scanner.string(),
                comma(), let fallback = scanner.string(), scanner.take(UInt8(ascii: "]"))
            else { throw FileError.corrupt(path: path, line: number, reason: "scratch row is damaged") }
            try body(
                FailedRow(
                    line: line, byteOffset: offset, byteLength: length, reason: reason, fallbackText: fallback,
                    bookId: id.isEmpty ? nil : UInt64(id, radix: 16)))
        }
    }
}
