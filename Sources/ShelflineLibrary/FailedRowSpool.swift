import ShelflineCore

/// An export's rows, spooled in pass 1 and read back after the fold (in an array, 2,000,000 rows were
/// 400 MB): `PATH` has five little-endian words a row (line, byte offset, byte length, has a book, book id),
/// `PATH.texts` a `["reason","fallback text"]` line, read only by the fallback (decoding it was most of the export).
final class FailedRowSpool {
    private let positions: ScratchWriter
    private let texts: ScratchWriter
    var path: String { positions.path }
    static let wordsPerRow = 5

    init(path: String) throws {
        positions = try ScratchWriter(path: path, flushSize: 1 << 16)
        texts = try ScratchWriter(path: path + ".texts", flushSize: 1 << 16)
    }

    func append(_ row: FailedRow) throws {
        try positions.append { buffer in
            for word in [row.line, row.byteOffset, row.byteLength, row.bookId == nil ? 0 : 1] {
                withUnsafeBytes(of: UInt64(truncatingIfNeeded: word).littleEndian) { buffer.append(contentsOf: $0) }
            }
            withUnsafeBytes(of: (row.bookId ?? 0).littleEndian) { buffer.append(contentsOf: $0) }
        }
        try texts.append { buffer in
            buffer.append(UInt8(ascii: "["))
            JSONString.append(row.reason, to: &buffer)
            buffer.append(UInt8(ascii: ","))
            JSONString.append(row.fallbackText, to: &buffer)
            buffer.append(contentsOf: "]\n".utf8)
        }
    }

    func close() throws {
        try positions.close()
        try texts.close()
    }

    /// In order. Without `texts`, `reason` and `fallbackText` are empty and only the numbers are read.
    func forEach(texts: Bool = true, _ body: (FailedRow) throws -> Void) throws {
        // A block of rows at a time: mapped whole, 2,000,000 rows' numbers were 80 MB of merge's memory.
        let numbers = try ScratchReader(path: path, blockSize: Self.wordsPerRow * 8 << 11)
        var rowsRead = 0
        func next() throws -> FailedRow? {
            try numbers.next(
                Self.wordsPerRow * 8,
                damaged: { FileError.corrupt(path: path, line: rowsRead + 1, reason: "scratch row is damaged") }
            ) { bytes in
                func word(_ index: Int) -> UInt64 {
                    UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self))
                }
                rowsRead += 1
                return FailedRow(
                    line: Int(truncatingIfNeeded: word(0)), byteOffset: Int(truncatingIfNeeded: word(1)),
                    byteLength: Int(truncatingIfNeeded: word(2)), reason: "", fallbackText: "",
                    bookId: word(3) == 0 ? nil : word(4))
            }
        }
        guard texts else {
            while let row = try next() { try body(row) }
            return
        }
        let textsPath = path + ".texts"
        try LineReader.forEachLine(path: textsPath) { line, number in
            var scanner = JSONScanner(line)
            guard var row = try next(), scanner.take(UInt8(ascii: "[")), let reason = scanner.string(),
                scanner.take(UInt8(ascii: ",")), let fallback = scanner.string(), scanner.take(UInt8(ascii: "]"))
            else { throw FileError.corrupt(path: textsPath, line: number, reason: "scratch row is damaged") }
            (row.reason, row.fallbackText) = (reason, fallback)
            try body(row)
        }
        guard try next() == nil else {
            throw FileError.corrupt(path: textsPath, line: rowsRead, reason: "scratch rows are missing")
        }
    }
}
