/// A `[UInt8]`, or a stage's own line buffer.
public protocol JSONByteSink {
    /// A hint.
    mutating func reserveBytes(_ extra: Int)
    mutating func append(_ byte: UInt8)
    mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>)
}

extension Array: JSONByteSink where Element == UInt8 {
    @inlinable public mutating func reserveBytes(_ extra: Int) { reserveCapacity(count + extra) }
    @inlinable public mutating func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) { append(contentsOf: bytes) }
}

/// The project's one JSON string escaper: the bytes `JSONEncoder.shelfline` writes for a string
/// (`/` and UTF-8 copied as they are), so hand-written lines match its output.
public enum JSONString {
    /// Quotes included.
    @inlinable
    public static func append<Sink: JSONByteSink>(_ utf8: UnsafeBufferPointer<UInt8>, to out: inout Sink) {
        out.reserveBytes(utf8.count + 2)
        out.append(UInt8(ascii: "\""))
        var runStart = 0
        var index = 0
        let count = utf8.count
        while index < count {
            // Plain runs (reviews) skipped 8 bytes at a time: byte by byte, this scan was 6 % of parse's CPU.
            while index + 8 <= count,
                !needsEscape(UnsafeRawPointer(utf8.baseAddress! + index).loadUnaligned(as: UInt64.self))
            {
                index += 8
            }
            guard index < count else { break }
            let byte = utf8[index]
            if byte >= 0x20 && byte != 0x22 && byte != 0x5C {
                index += 1
                continue
            }
            if index > runStart {
                out.appendBytes(UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            }
            out.append(UInt8(ascii: "\\"))
            switch byte {
            case 0x22: out.append(0x22)
            case 0x5C: out.append(0x5C)
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            case 0x08: out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "f"))
            default:
                out.append(UInt8(ascii: "u"))
                out.append(0x30)
                out.append(0x30)
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0xF))
            }
            index += 1
            runStart = index
        }
        if count > runStart {
            out.appendBytes(UnsafeBufferPointer(rebasing: utf8[runStart..<count]))
        }
        out.append(UInt8(ascii: "\""))
    }

    @inlinable
    public static func append<Sink: JSONByteSink>(_ text: String, to out: inout Sink) {
        var text = text
        text.withUTF8 { append($0, to: &out) }
    }

    @inlinable
    static func hexDigit(_ value: UInt8) -> UInt8 { value < 10 ? 0x30 + value : 0x61 + value - 10 }

    /// One of the 8 bytes is a control character, `"` or `\` (exact, by SWAR zero-byte tests).
    @inlinable
    public static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word & highs
        let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
        let quotes = (quote &- ones) & ~quote & highs
        let backslashes = (backslash &- ones) & ~backslash & highs
        return (control | quotes | backslashes) != 0
    }
}
