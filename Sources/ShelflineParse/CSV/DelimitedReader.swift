import ShelflineCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file descriptor, or memory (tests).
public enum DelimitedSource {
    case descriptor(Int32, path: String)
    case bytes([UInt8])
}

/// One row's unescaped field bytes, reused from row to row (copy what you keep), and where it sits
/// in the file. The bytes may be invalid UTF-8: read them through `TextRepair`.
public struct DelimitedRow {
    /// 1-based physical line where the row starts.
    public internal(set) var line = 0
    /// Without the line terminator.
    public internal(set) var byteOffset = 0
    public internal(set) var byteLength = 0
    /// Set when the row is malformed: then it holds only the first line.
    public internal(set) var malformation: String?
    /// So UTF-8 validation is done only where it is worth doing.
    public internal(set) var hasNonASCII = false
    /// NUL bytes dropped from the fields; the raw bytes (`DelimitedReader.lastRowBytes`) still hold them.
    public internal(set) var nulBytes = 0
    /// Field bytes, back to back, field `i` ending at `ends[i]`.
    public internal(set) var storage: [UInt8] = []
    public internal(set) var ends: [Int] = []

    public init() {}

    public var count: Int { ends.count }

    /// Field `index`'s bytes in `storage`.
    @inline(__always)
    public func range(_ index: Int) -> Range<Int> {
        (index == 0 ? 0 : ends[index - 1])..<ends[index]
    }

    /// Empty when out of range.
    public func bytes(_ index: Int) -> ArraySlice<UInt8> {
        index < ends.count ? storage[range(index)] : []
    }

    mutating func reset() {
        storage.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
        malformation = nil
        hasNonASCII = false
        nulBytes = 0
    }

    mutating func dropNULs() {
        let found = storage.withUnsafeBytes { bytes in bytes.baseAddress.map { memchr($0, 0, bytes.count) != nil } ?? false }
        guard found else { return }
        var kept = 0, field = 0
        for index in storage.indices {
            while field < ends.count && ends[field] == index {
                ends[field] = kept
                field += 1
            }
            if storage[index] != 0 {
                storage[kept] = storage[index]
                kept += 1
            }
        }
        while field < ends.count {
            ends[field] = kept
            field += 1
        }
        nulBytes = storage.count - kept
        storage.removeLast(nulBytes)
    }
}

/// A streaming RFC 4180 reader on bytes: LF, CRLF and lone-CR line ends mixed freely (each one
/// line break, inside quotes too), a UTF-8 BOM skipped, any one-byte delimiter.
///
/// Memory stays flat: never more than the current row plus one block. Lenient where Python's `csv`
/// is (a quote inside an unquoted field is literal; text after a closing quote is kept) so row
/// counts match that reference. A quote never closed makes its first physical line one malformed
/// row and reading resumes after it: one stray quote costs one row, not the rest of the file. A
/// row over `maxRowBytes` is skipped without being held and reported as one malformed row over its
/// real extent, so line numbers stay right.
public final class DelimitedReader {
    /// The documented limit, far above any real export's row.
    public static let defaultMaxRowBytes = 8 << 20

    public var delimiter: UInt8
    public let maxRowBytes: Int
    private let source: DelimitedSource
    private var buffer: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Valid bytes are `buffer[position..<filled]`; `buffer[0]` is file offset `bufferFileOffset`.
    private var position = 0
    private var filled = 0
    private var bufferFileOffset = 0
    private var sourceEnded = false
    private var memoryOffset = 0
    private var nextLine = 1
    private let blockSize: Int
    /// Set once a block read held a NUL byte: from then on each row's fields are checked for them.
    private var sawNUL = false
    private var startChecked = false

    public init(
        source: DelimitedSource, delimiter: UInt8 = UInt8(ascii: ","), blockSize: Int = 1 << 20,
        maxRowBytes: Int = defaultMaxRowBytes
    ) {
        self.source = source
        self.delimiter = delimiter
        self.blockSize = blockSize
        self.maxRowBytes = maxRowBytes
        capacity = blockSize
        buffer = .allocate(capacity: capacity)
    }

    deinit { buffer.deallocate() }

    /// The raw bytes of the row `next(into:)` returned last, without its terminator; empty when oversized.
    public var lastRowBytes: [UInt8] {
        let start = lastRowOffset - bufferFileOffset
        guard start >= 0, start + lastRowLength <= filled else { return [] }
        return Array(UnsafeBufferPointer(start: buffer + start, count: lastRowLength))
    }
    private var lastRowOffset = 0
    private var lastRowLength = 0

    /// Without terminator or BOM, up to `limit` bytes; consumes nothing.
    public func peekFirstLine(limit: Int = 1 << 16) throws -> [UInt8] {
        try skipBOMIfPresent()
        while true {
            let available = UnsafeBufferPointer(start: buffer + position, count: filled - position)
            if let lineBreak = available.firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) {
                return Array(available[..<lineBreak])
            }
            if sourceEnded || available.count >= limit {
                return Array(available.prefix(limit))
            }
            try fill()
        }
    }

    /// The first `count` bytes after any BOM, without consuming them.
    public func peek(_ count: Int) throws -> [UInt8] {
        try skipBOMIfPresent()
        while filled - position < count && !sourceEnded {
            try fill()
        }
        return Array(UnsafeBufferPointer(start: buffer + position, count: min(count, filled - position)))
    }

    /// Reads the next non-blank row into `row`; false at the end of the input.
    public func next(into row: inout DelimitedRow) throws -> Bool {
        try skipBOMIfPresent()
        while true {
            if position >= filled {
                if sourceEnded { return false }
                try fill()
                continue
            }
            let first = buffer[position]
            if first == 0x0A {
                position += 1
                nextLine += 1
                continue
            }
            if first == 0x0D {
                if position + 1 < filled {
                    // CRLF, or a lone CR: a blank line either way.
                    position += buffer[position + 1] == 0x0A ? 2 : 1
                    nextLine += 1
                    continue
                } else if !sourceEnded {
                    try fill()
                    continue
                } else {
                    position += 1  // a lone CR at the very end
                    continue
                }
            }
            row.reset()
            switch scanRow(into: &row) {
            case .complete(let end, let terminatorLength, let newlines):
                row.line = nextLine
                row.byteOffset = bufferFileOffset + position
                row.byteLength = end - position
                lastRowOffset = row.byteOffset
                lastRowLength = row.byteLength
                if row.byteLength > maxRowBytes {
                    // It fitted in the buffer after all: the same outcome as a longer one.
                    row.reset()
                    row.ends.append(0)
                    row.malformation = oversizedReason
                    lastRowLength = 0
                }
                nextLine += newlines + (terminatorLength > 0 ? 1 : 0)
                position = end + terminatorLength
                if sawNUL { row.dropNULs() }
                return true
            case .needMore:
                if filled - position > maxRowBytes {
                    try skipOversizedRow(into: &row)
                    return true
                }
                if sourceEnded {
                    recoverFromOpenQuote(into: &row)
                    if sawNUL { row.dropNULs() }
                    return true
                }
                try fill()
            }
        }
    }

    private enum ScanResult {
        /// `newlines` inside quotes.
        case complete(end: Int, terminatorLength: Int, newlines: Int)
        case needMore
    }

    /// On `.needMore` nothing is consumed: rows are small next to a block, so rescanning is cheap.
    @inline(__always)
    private func scanRow(into row: inout DelimitedRow) -> ScanResult {
        let delimiter = self.delimiter
        let quote: UInt8 = 0x22
        let base = buffer
        let limit = filled
        var index = position
        var newlines = 0
        var highBits: UInt8 = 0
        while true {
            if index < limit && base[index] == quote {
                index += 1
                while true {
                    let runStart = index
                    while index < limit {
                        // Quoted text 8 bytes at a time while it holds no quote or line break:
                        // byte by byte measured slower.
                        while index + 8 <= limit {
                            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                            if Self.hasQuoteOrLineBreak(word) { break }
                            if word & 0x8080_8080_8080_8080 != 0 { highBits |= 0x80 }
                            index += 8
                        }
                        guard index < limit else { break }
                        let byte = base[index]
                        if byte == quote { break }
                        // Count CR, and LF unless after a CR.
                        if byte == 0x0D || (byte == 0x0A && base[index - 1] != 0x0D) { newlines += 1 }
                        highBits |= byte
                        index += 1
                    }
                    if index >= limit {
                        return .needMore
                    }
                    appendBytes(&row.storage, base + runStart, index - runStart)
                    // At a quote: doubled → literal quote; else the quoted part ends.
                    if index + 1 >= limit {
                        if sourceEnded {
                            index += 1
                            break
                        }
                        return .needMore
                    }
                    if base[index + 1] == quote {
                        row.storage.append(quote)
                        index += 2
                        continue
                    }
                    index += 1
                    break
                }
            }
            // Unquoted part (the whole field, or text after a closing quote).
            let runStart = index
            while index < limit {
                let byte = base[index]
                if byte == delimiter || byte == 0x0A || byte == 0x0D { break }
                highBits |= byte
                index += 1
            }
            if index >= limit {
                guard sourceEnded else { return .needMore }
                appendBytes(&row.storage, base + runStart, index - runStart)
                row.ends.append(row.storage.count)
                row.hasNonASCII = highBits & 0x80 != 0
                return .complete(end: index, terminatorLength: 0, newlines: newlines)
            }
            if base[index] == delimiter {
                appendBytes(&row.storage, base + runStart, index - runStart)
                row.ends.append(row.storage.count)
                index += 1
                continue
            }
            // A line break ends the row: LF, CRLF, or a lone CR.
            var terminatorLength = 1
            if base[index] == 0x0D {
                if index + 1 < limit {
                    if base[index + 1] == 0x0A { terminatorLength = 2 }
                } else if !sourceEnded {
                    return .needMore
                }
            }
            appendBytes(&row.storage, base + runStart, index - runStart)
            row.ends.append(row.storage.count)
            row.hasNonASCII = highBits & 0x80 != 0
            return .complete(end: index, terminatorLength: terminatorLength, newlines: newlines)
        }
    }

    /// Whether a byte of `word` is `"`, LF or CR (SWAR zero-byte tests).
    @inline(__always)
    static func hasQuoteOrLineBreak(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22), lineFeed = word ^ (ones &* 0x0A), carriageReturn = word ^ (ones &* 0x0D)
        return ((quote &- ones) & ~quote & highs) | ((lineFeed &- ones) & ~lineFeed & highs)
            | ((carriageReturn &- ones) & ~carriageReturn & highs) != 0
    }

    @inline(__always)
    private func appendBytes(_ storage: inout [UInt8], _ start: UnsafeMutablePointer<UInt8>, _ count: Int) {
        guard count > 0 else { return }
        storage.append(contentsOf: UnsafeBufferPointer(start: start, count: count))
    }

    /// An open quote ran to the end of the input: the first physical line is one malformed row.
    private func recoverFromOpenQuote(into row: inout DelimitedRow) {
        row.reset()
        let available = UnsafeBufferPointer(start: buffer + position, count: filled - position)
        let lineBreak = available.firstIndex(where: { $0 == 0x0A || $0 == 0x0D })
        let end = lineBreak ?? available.count
        var terminatorLength = 0
        if let lineBreak {
            terminatorLength =
                available[lineBreak] == 0x0D && lineBreak + 1 < available.count
                    && available[lineBreak + 1] == 0x0A ? 2 : 1
        }
        row.storage.append(contentsOf: available[..<end])
        row.ends.append(row.storage.count)
        row.hasNonASCII = available[..<end].contains { $0 & 0x80 != 0 }
        row.malformation = Self.unterminatedReason
        row.line = nextLine
        row.byteOffset = bufferFileOffset + position
        row.byteLength = end
        lastRowOffset = row.byteOffset
        lastRowLength = row.byteLength
        nextLine += 1
        position += end + terminatorLength
    }

    /// Scans to the row's real end by `scanRow`'s rules, discarding its bytes. A quote never closed
    /// leaves the end unknown: the first physical line is reported unterminated, as for a short row.
    private func skipOversizedRow(into row: inout DelimitedRow) throws {
        enum State { case fieldStart, quoted, quoteInQuoted, unquoted }
        row.reset()
        let startOffset = bufferFileOffset + position
        let startLine = nextLine
        var firstBreak: Int?  // file offset of the row's first line-break byte
        var newlines = 0, previousWasCR = false
        var state = State.fieldStart
        var contentEnd: Int?, terminatorLength = 0
        var index = position
        scan: while true {
            if index >= filled {
                if sourceEnded { break scan }
                position = index
                try fill()
                index = position
                continue
            }
            let byte = buffer[index]
            switch state {
            case .fieldStart:
                if byte == 0x22 {
                    state = .quoted
                    index += 1
                } else {
                    state = .unquoted
                }
                continue scan
            case .quoted:
                if byte == 0x22 {
                    state = .quoteInQuoted
                } else if byte == 0x0D || (byte == 0x0A && !previousWasCR) {
                    newlines += 1
                    if firstBreak == nil { firstBreak = bufferFileOffset + index }
                }
                previousWasCR = byte == 0x0D
                index += 1
            case .quoteInQuoted:
                previousWasCR = false
                if byte == 0x22 {
                    state = .quoted
                    index += 1
                } else {
                    state = .unquoted
                }
            case .unquoted:
                if byte == delimiter {
                    state = .fieldStart
                    index += 1
                } else if byte == 0x0A || byte == 0x0D {
                    if byte == 0x0D && index + 1 >= filled && !sourceEnded {
                        position = index
                        try fill()
                        index = position
                        continue scan
                    }
                    contentEnd = bufferFileOffset + index
                    terminatorLength = byte == 0x0D && index + 1 < filled && buffer[index + 1] == 0x0A ? 2 : 1
                    index += terminatorLength
                    break scan
                } else {
                    index += 1
                }
            }
        }
        row.line = startLine
        row.byteOffset = startOffset
        if state == .quoted, let firstBreak {
            // `next`'s blank-line skip consumes the line break and counts the line.
            try rewind(to: firstBreak)
            row.malformation = Self.unterminatedReason
            row.byteLength = firstBreak - startOffset
            nextLine = startLine
        } else {
            let end = contentEnd ?? (bufferFileOffset + index)
            row.byteLength = end - startOffset
            row.malformation = state == .quoted ? Self.unterminatedReason : oversizedReason
            nextLine = startLine + newlines + (terminatorLength > 0 ? 1 : 0)
            position = index
        }
        row.ends.append(0)
        lastRowOffset = row.byteOffset
        lastRowLength = 0  // not in the buffer any more
    }

    private var oversizedReason: String { "row larger than \(maxRowBytes) bytes" }
    private static let unterminatedReason = "unterminated quoted field (a quote opened on this line is never closed)"

    private func rewind(to offset: Int) throws {
        switch source {
        case .descriptor(let fd, let path):
            guard lseek(fd, off_t(offset), SEEK_SET) >= 0 else {
                throw FileError.io(path: path, reason: "seek: \(systemErrorMessage())")
            }
        case .bytes:
            memoryOffset = offset
        }
        position = 0
        filled = 0
        bufferFileOffset = offset
        sourceEnded = false
    }

    private func skipBOMIfPresent() throws {
        guard !startChecked else { return }
        while filled - position < 3 && !sourceEnded {
            try fill()
        }
        startChecked = true
        if filled - position >= 3 && buffer[position] == 0xEF && buffer[position + 1] == 0xBB && buffer[position + 2] == 0xBF {
            position += 3
        }
    }

    /// Moves the unread bytes to the front (growing the buffer when a row fills it) and reads more.
    private func fill() throws {
        if position > 0 {
            let remaining = filled - position
            if remaining > 0 {
                (buffer).update(from: buffer + position, count: remaining)
            }
            bufferFileOffset += position
            position = 0
            filled = remaining
        }
        if capacity - filled < blockSize / 2 {
            let newCapacity = capacity * 2
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            grown.update(from: buffer, count: filled)
            buffer.deallocate()
            buffer = grown
            capacity = newCapacity
        }
        let count: Int
        switch source {
        case .descriptor(let fd, let path):
            var result: Int
            repeat {
                result = read(fd, buffer + filled, capacity - filled)
            } while result < 0 && errno == EINTR
            if result < 0 {
                throw FileError.io(path: path, reason: "read: \(systemErrorMessage())")
            }
            count = result
        case .bytes(let bytes):
            count = min(capacity - filled, bytes.count - memoryOffset, blockSize)
            if count > 0 {
                bytes.withUnsafeBufferPointer { (buffer + filled).update(from: $0.baseAddress! + memoryOffset, count: count) }
                memoryOffset += count
            }
        }
        if count == 0 {
            sourceEnded = true
            return
        }
        if !sawNUL && memchr(buffer + filled, 0, count) != nil { sawNUL = true }
        filled += count
    }
}
