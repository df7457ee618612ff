/// Turns field bytes into text: valid UTF-8 as is, anything else repaired byte by byte.
///
/// LibraryThing files mix UTF-8 and Latin-1, so this is decided per byte: every valid UTF-8
/// sequence is kept, every other byte read as Windows-1252. No byte is dropped or made U+FFFD.
public enum TextRepair {
    /// Shortest forms, no surrogates, ≤ U+10FFFF.
    public static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            // ASCII runs 8 bytes at a time: byte by byte measured slower.
            while index + 8 <= count,
                UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0
            {
                index += 8
            }
            guard index < count else { break }
            let byte = bytes[index]
            if byte < 0x80 {
                index += 1
                continue
            }
            let length = sequenceLength(bytes, at: index)
            if length == 0 { return false }
            index += length
        }
        return true
    }

    /// The text, and whether any byte was repaired.
    public static func decode(_ bytes: [UInt8]) -> (text: String, repaired: Bool) {
        if let text = String(validating: bytes, as: UTF8.self) { return (text, false) }
        return bytes.withUnsafeBufferPointer { (String(decoding: repair($0), as: UTF8.self), true) }
    }

    /// Each invalid byte as its Windows-1252 character.
    public static func repair(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + bytes.count / 2)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte < 0x80 {
                output.append(byte)
                index += 1
                continue
            }
            let length = sequenceLength(bytes, at: index)
            if length > 0 {
                output.append(contentsOf: bytes[index..<(index + length)])
                index += length
                continue
            }
            // Latin-1 where 1252 leaves a byte undefined; every value is a scalar (none a surrogate).
            let scalar = byte < 0xA0 ? windows1252High[Int(byte - 0x80)] : UInt32(byte)
            UTF8.encode(Unicode.Scalar(scalar)!) { output.append($0) }
            index += 1
        }
        return output
    }

    private static let windows1252High: [UInt32] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152,
        0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122,
        0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ]

    /// 2–4, or 0 when no valid sequence starts at `index`.
    @inline(__always)
    static func sequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        let first = bytes[index]
        let count = bytes.count
        @inline(__always) func continuation(_ offset: Int) -> Bool {
            index + offset < count && bytes[index + offset] & 0xC0 == 0x80
        }
        switch first {
        case 0xC2...0xDF:
            return continuation(1) ? 2 : 0
        case 0xE0...0xEF:
            guard continuation(1), continuation(2) else { return 0 }
            let second = bytes[index + 1]
            if first == 0xE0 && second < 0xA0 { return 0 }  // overlong
            if first == 0xED && second > 0x9F { return 0 }  // surrogate
            return 3
        case 0xF0...0xF4:
            guard continuation(1), continuation(2), continuation(3) else { return 0 }
            let second = bytes[index + 1]
            if first == 0xF0 && second < 0x90 { return 0 }  // overlong
            if first == 0xF4 && second > 0x8F { return 0 }  // > U+10FFFF
            return 4
        default:
            return 0
        }
    }
}
