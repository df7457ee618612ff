#if canImport(Glibc)
    import Glibc
#endif

/// A validating, allocation-light JSON reader for the byte-level codecs: it reads the values a
/// caller asks for and skips the rest, still checking their syntax. On any doubt it answers
/// nil/false, and callers fall back to `JSONDecoder` for a precise error.
public struct JSONScanner {
    public let bytes: UnsafeRawBufferPointer
    /// The next byte to read.
    public var index = 0

    public init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// `member` consumes each value, named by its raw bytes, compared without making a `String` (that
    /// was a fifth of parsing catalog dumps); for readers whose names never hold escapes. False when
    /// the object is malformed or `member` says so.
    @inlinable
    public mutating func rawMembers(_ member: (inout JSONScanner, MemberName) -> Bool) -> Bool {
        objectMembers(
            name: { scanner in
                guard scanner.peek() == UInt8(ascii: "\""), let range = scanner.rawValue() else { return nil }
                return MemberName(
                    bytes: UnsafeRawBufferPointer(rebasing: scanner.bytes[(range.lowerBound + 1)..<(range.upperBound - 1)]))
            }, member)
    }

    @inlinable @inline(__always)
    mutating func objectMembers<Name>(
        name readName: (inout JSONScanner) -> Name?,
        _ member: (inout JSONScanner, Name) -> Bool
    ) -> Bool {
        sequence(UInt8(ascii: "{"), UInt8(ascii: "}")) { s in
            guard let name = readName(&s) else { return false }
            s.skipWhitespace()
            guard s.take(UInt8(ascii: ":")) else { return false }
            s.skipWhitespace()
            return member(&s, name)
        }
    }

    /// `element` consumes each element.
    @inlinable @inline(__always)
    public mutating func array(_ element: (inout JSONScanner) -> Bool) -> Bool {
        sequence(UInt8(ascii: "["), UInt8(ascii: "]"), element)
    }

    /// The members of an object or the elements of an array between `open` and `close`, `item`
    /// consuming each. False when it is malformed or `item` says so.
    @inlinable @inline(__always)
    mutating func sequence(_ open: UInt8, _ close: UInt8, _ item: (inout JSONScanner) -> Bool) -> Bool {
        guard take(open) else { return false }
        skipWhitespace()
        if take(close) { return true }
        while true {
            skipWhitespace()
            guard item(&self) else { return false }
            skipWhitespace()
            if take(close) { return true }
            guard take(UInt8(ascii: ",")) else { return false }
        }
    }

    /// Nil unless every value is a string.
    public mutating func stringMap() -> [String: String]? {
        var map: [String: String] = [:]
        let ok = objectMembers(name: { $0.string() }) { s, key in
            guard let value = s.string() else { return false }
            map[key] = value
            return true
        }
        return ok ? map : nil
    }

    /// Nil unless every element is a string.
    public mutating func stringArray() -> [String]? {
        var values: [String] = []
        let ok = array { s in
            guard let value = s.string() else { return false }
            values.append(value)
            return true
        }
        return ok ? values : nil
    }

    public mutating func atEnd() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }

    public func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    public mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    public mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    public mutating func skipValue(depth: Int) -> Bool {
        guard depth < 64, let byte = peek() else { return false }
        switch byte {
        case UInt8(ascii: "\""):
            return skipString()
        case UInt8(ascii: "{"):
            return objectMembers(name: { $0.skipString() ? () : nil }) { s, _ in s.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            return array { $0.skipValue(depth: depth + 1) }
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return skipNumber()
        }
    }

    mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
        index += count
        return true
    }

    mutating func skipNumber() -> Bool {
        func digits() -> Int {
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 { index += 1 }
            return index - start
        }
        _ = take(UInt8(ascii: "-"))
        guard digits() > 0 else { return false }
        if take(UInt8(ascii: ".")) { guard digits() > 0 else { return false } }
        if take(UInt8(ascii: "e")) || take(UInt8(ascii: "E")) {
            if !take(UInt8(ascii: "+")) { _ = take(UInt8(ascii: "-")) }
            guard digits() > 0 else { return false }
        }
        return true
    }

    mutating func skipString() -> Bool {
        guard take(UInt8(ascii: "\"")) else { return false }
        while index < bytes.count {
            // Plain runs 8 bytes at a time: the reviews an `.identity` decode skips are most of a line.
            while index + 8 <= bytes.count, !JSONString.needsEscape(bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                index += 8
            }
            guard index < bytes.count else { break }
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") { return true }
            if byte < 0x20 { return false }
            if byte == UInt8(ascii: "\\") {
                guard index < bytes.count else { return false }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    continue
                case UInt8(ascii: "u"):
                    guard hex4() != nil else { return false }
                default:
                    return false
                }
            }
        }
        return false
    }

    mutating func hex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            index += 1
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: return nil
            }
            value = value << 4 | digit
        }
        return value
    }

    /// Escapes decoded; nil when the next value is not a valid string.
    public mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        // The OR of every byte read: below 0x80, the string is ASCII and needs no UTF-8 validation.
        var high: UInt64 = 0
        while index < bytes.count {
            // Plain runs (reviews) 8 bytes at a time, by the escaper's own word test.
            while index + 8 <= bytes.count {
                let word = bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                guard !JSONString.needsEscape(word) else { break }
                high |= word
                index += 8
            }
            guard index < bytes.count else { break }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let utf8 = UnsafeRawBufferPointer(rebasing: bytes[start..<index]).assumingMemoryBound(to: UInt8.self)
                index += 1
                // ASCII needs no validation (measured 10 % of dedupe and merge); a typed buffer takes
                // the contiguous validation, a raw one the slow per-element path (9 % of merge).
                if high & 0x8080_8080_8080_8080 == 0 { return String(decoding: utf8, as: UTF8.self) }
                return String(validating: utf8, as: UTF8.self)
            }
            if byte < 0x20 || byte == UInt8(ascii: "\\") { return escapedString(from: start) }
            high |= UInt64(byte)
            index += 1
        }
        return nil
    }

    /// Rebuilt in one byte buffer and validated once (scalar by scalar measured 5 % of merge): escapes
    /// encode whole scalars, so a run invalid on its own never becomes valid next to them.
    mutating func escapedString(from start: Int) -> String? {
        index = start
        var utf8: [UInt8] = []
        utf8.reserveCapacity(64)
        var runStart = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                utf8.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<index]))
                index += 1
                return String(validating: utf8, as: UTF8.self)
            }
            if byte < 0x20 { return nil }
            guard byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            utf8.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<index]))
            index += 1
            guard index < bytes.count else { return nil }
            let escaped = bytes[index]
            index += 1
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escaped)
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                guard var value = hex4() else { return nil }
                if (0xD800..<0xDC00).contains(value) {
                    guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(), (0xDC00..<0xE000).contains(low)
                    else { return nil }
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(value) else { return nil }
                UTF8.encode(scalar) { utf8.append($0) }
            default:
                return nil
            }
            runStart = index
        }
        return nil
    }

    /// Nil for fractions, exponents and overflow.
    public mutating func int() -> Int? {
        let start = index
        guard skipNumber() else { return nil }
        var value = 0
        var position = start
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        while position < index {
            let byte = bytes[position]
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(Int(byte - 0x30))
            guard !overflow, !overflow2 else { return nil }
            value = sum
            position += 1
        }
        return negative ? -value : value
    }

    /// The next value skipped, its syntax checked.
    public mutating func rawValue(depth: Int = 1) -> Range<Int>? {
        let start = index
        guard skipValue(depth: depth) else { return nil }
        return start..<index
    }

    /// Consumes `null`; false, consuming nothing, for any other value.
    public mutating func null() -> Bool {
        peek() == UInt8(ascii: "n") && literal("null")
    }
}

/// A member's name as in the text (escapes not decoded), compared without making a `String`.
public struct MemberName {
    public let bytes: UnsafeRawBufferPointer

    @inlinable
    public init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    @inlinable
    public static func ~= (pattern: StaticString, name: MemberName) -> Bool {
        pattern.utf8CodeUnitCount == name.bytes.count
            && (name.bytes.isEmpty || memcmp(pattern.utf8Start, name.bytes.baseAddress!, name.bytes.count) == 0)
    }

    @inlinable
    public static func == (name: MemberName, pattern: StaticString) -> Bool { pattern ~= name }
}
