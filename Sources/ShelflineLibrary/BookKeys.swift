import Foundation
import ShelflineCore

/// The identity keys a record or book is found by, and the stable book id derived from a key:
/// `isbn:<ISBN-13>` (an ISBN-10 converted, so both forms meet), the title identity `tk:…` (`TitleIdentity`)
/// and `row:…` for a row with neither.
public enum BookKeys {
    /// Nil without a valid ISBN.
    public static func isbnKey(isbn13: String?, isbn10: String?) -> String? {
        if let isbn13, let canonical = canonical13(isbn13, length: 13) { return "isbn:" + canonical }
        if let isbn10, let converted = canonical13(isbn10, length: 10) { return "isbn:" + converted }
        return nil
    }

    /// The stable id of a book created from `key`: `b` + 16 hex digits of SHA-256(key).
    public static func bookId(for key: String) -> String {
        idString(keyHash(key))
    }

    /// Nil if `id` is no book id.
    public static func idBits(_ id: String) -> UInt64? {
        guard id.utf8.count == 17, id.first == "b" else { return nil }
        return UInt64(id.dropFirst(), radix: 16)
    }

    public static func idString(_ bits: UInt64) -> String {
        String(unsafeUninitializedCapacity: 17) { buffer in
            buffer[0] = UInt8(ascii: "b")
            for index in 0..<16 { buffer[1 + index] = hexDigit(bits, index) }
            return 17
        }
    }

    /// An id without its `b`.
    static func appendHex(_ bits: UInt64, to out: inout [UInt8]) {
        for index in 0..<16 { out.append(hexDigit(bits, index)) }
    }

    static func hexBits(_ digits: UnsafeRawBufferPointer) -> UInt64? {
        guard digits.count == 16 else { return nil }
        var bits: UInt64 = 0
        for byte in digits {
            let value: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            bits = bits << 4 | UInt64(value)
        }
        return bits
    }

    /// Digit 0 is the most significant.
    private static func hexDigit(_ bits: UInt64, _ index: Int) -> UInt8 {
        let nibble = UInt8(truncatingIfNeeded: bits >> UInt64(60 - 4 * index)) & 0xF
        return nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// The first 8 bytes of SHA-256(key), big-endian: the bits of a book id made from `key`.
    public static func keyHash(_ key: String) -> UInt64 {
        var key = key
        // In place: a `Data` copy per key cost a third of this function (measured).
        let digest = key.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
        return digest.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
    }

    /// A valid ISBN of `length` characters, hyphens and spaces aside, as its ISBN-13 (`ShelflineCore.ISBN`).
    private static func canonical13(_ text: String, length: Int) -> String? {
        text.utf8.count(where: { $0 != 45 && $0 != 32 }) == length ? ISBN.canonical13(text) : nil
    }
}
