/// Reads a library line's `id`, `keys`, `reviewDecision` and creating import without building the whole object:
/// the key scan of every merge and dedupe touches every book, and Foundation's `JSONDecoder`
/// spent most of its time on fields the index does not need.
///
/// It still checks the line's JSON syntax (strings, escapes, numbers, literals, nesting), so a line
/// it accepts is a well-formed object; on any doubt it returns nil and the caller decodes the line
/// with `JSONDecoder` to get a precise error.
struct IndexLineScanner {
    struct Fields {
        var id: String?
        var keys: [String]?
        var reviewDecision: String?
        /// The import whose contribution created the book (the first provenance entry, `fields: ["created"]`).
        var createdBy: String?
    }

    private let bytes: UnsafeRawBufferPointer
    private var index = 0

    private init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// The fields, or nil when the line is not a well-formed JSON object this scanner understands.
    static func scan(_ bytes: UnsafeRawBufferPointer) -> Fields? {
        var scanner = IndexLineScanner(bytes)
        return scanner.object()
    }

    private mutating func object() -> Fields? {
        var fields = Fields()
        skipWhitespace()
        let wellFormed = members { scanner, key in
            switch key {
            case "id":
                guard let value = scanner.string() else { return false }
                fields.id = value
            case "reviewDecision":
                if scanner.peek() == UInt8(ascii: "n") { return scanner.skipValue(depth: 1) }
                guard let value = scanner.string() else { return false }
                fields.reviewDecision = value
            case "keys":
                guard let keys = scanner.stringArray() else { return false }
                fields.keys = keys
            case "provenance":
                guard scanner.take(UInt8(ascii: "[")) else { return false }
                scanner.skipWhitespace()
                if scanner.take(UInt8(ascii: "]")) { return true }
                guard let first = scanner.contribution() else { return false }
                fields.createdBy = first
                while true {
                    scanner.skipWhitespace()
                    if scanner.take(UInt8(ascii: "]")) { return true }
                    guard scanner.take(UInt8(ascii: ",")) else { return false }
                    scanner.skipWhitespace()
                    guard scanner.skipValue(depth: 2) else { return false }
                }
            default:
                return scanner.skipValue(depth: 1)
            }
            return true
        }
        return wellFormed && atEnd() ? fields : nil
    }

    /// One provenance object: its `importId` when its `fields` are `["created"]`, else nil; nil
    /// (outer) when malformed.
    private mutating func contribution() -> String?? {
        var importId: String?
        var created = false
        let wellFormed = members { scanner, key in
            switch key {
            case "importId":
                guard let value = scanner.string() else { return false }
                importId = value
            case "fields":
                guard let names = scanner.stringArray() else { return false }
                created = names == ["created"]
            default:
                return scanner.skipValue(depth: 3)
            }
            return true
        }
        guard wellFormed else { return nil }
        return .some(created ? importId : nil)
    }

    /// Reads an object, calling `member` with each key and the scanner at its value, which
    /// `member` consumes. False when the object is malformed or `member` says so.
    private mutating func members(_ member: (inout IndexLineScanner, String) -> Bool) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        skipWhitespace()
        if take(UInt8(ascii: "}")) { return true }
        while true {
            skipWhitespace()
            guard let key = string() else { return false }
            skipWhitespace()
            guard take(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            guard member(&self, key) else { return false }
            skipWhitespace()
            if take(UInt8(ascii: "}")) { return true }
            guard take(UInt8(ascii: ",")) else { return false }
        }
    }

    /// An array of strings, or nil when the value is anything else.
    private mutating func stringArray() -> [String]? {
        guard take(UInt8(ascii: "[")) else { return nil }
        var values: [String] = []
        skipWhitespace()
        if take(UInt8(ascii: "]")) { return values }
        while true {
            skipWhitespace()
            guard let value = string() else { return nil }
            values.append(value)
            skipWhitespace()
            if take(UInt8(ascii: "]")) { return values }
            guard take(UInt8(ascii: ",")) else { return nil }
        }
    }

    private mutating func atEnd() -> Bool {
        skipWhitespace()
        return index == bytes.count
    }

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    private mutating func skipValue(depth: Int) -> Bool {
        guard depth < 64, let byte = peek() else { return false }
        switch byte {
        case UInt8(ascii: "\""):
            return skipString()
        case UInt8(ascii: "{"):
            index += 1
            skipWhitespace()
            if take(UInt8(ascii: "}")) { return true }
            while true {
                skipWhitespace()
                guard skipString() else { return false }
                skipWhitespace()
                guard take(UInt8(ascii: ":")) else { return false }
                skipWhitespace()
                guard skipValue(depth: depth + 1) else { return false }
                skipWhitespace()
                if take(UInt8(ascii: "}")) { return true }
                guard take(UInt8(ascii: ",")) else { return false }
            }
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            if take(UInt8(ascii: "]")) { return true }
            while true {
                skipWhitespace()
                guard skipValue(depth: depth + 1) else { return false }
                skipWhitespace()
                if take(UInt8(ascii: "]")) { return true }
                guard take(UInt8(ascii: ",")) else { return false }
            }
        case UInt8(ascii: "t"): return literal("true")
        case UInt8(ascii: "f"): return literal("false")
        case UInt8(ascii: "n"): return literal("null")
        default: return skipNumber()
        }
    }

    private mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
        index += count
        return true
    }

    private mutating func skipNumber() -> Bool {
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

    private mutating func skipString() -> Bool {
        guard take(UInt8(ascii: "\"")) else { return false }
        while index < bytes.count {
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

    private mutating func hex4() -> UInt32? {
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

    /// A string value; escapes other than the common ones send the line to `JSONDecoder`.
    private mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(validating: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            if byte < 0x20 || byte == UInt8(ascii: "\\") { return escapedString(from: start) }
            index += 1
        }
        return nil
    }

    private mutating func escapedString(from start: Int) -> String? {
        index = start
        var scalars = String.UnicodeScalarView()
        var pending: [UInt8] = []
        func flush() -> Bool {
            guard !pending.isEmpty else { return true }
            guard let text = String(validating: pending, as: UTF8.self) else { return false }
            scalars.append(contentsOf: text.unicodeScalars)
            pending.removeAll()
            return true
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") {
                guard flush() else { return nil }
                return String(scalars)
            }
            if byte < 0x20 { return nil }
            guard byte == UInt8(ascii: "\\") else {
                pending.append(byte)
                continue
            }
            guard flush(), index < bytes.count else { return nil }
            let escaped = bytes[index]
            index += 1
            switch escaped {
            case UInt8(ascii: "\""): scalars.append("\"")
            case UInt8(ascii: "\\"): scalars.append("\\")
            case UInt8(ascii: "/"): scalars.append("/")
            case UInt8(ascii: "b"): scalars.append("\u{8}")
            case UInt8(ascii: "f"): scalars.append("\u{C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                guard var value = hex4() else { return nil }
                if (0xD800..<0xDC00).contains(value) {
                    guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(), (0xDC00..<0xE000).contains(low)
                    else { return nil }
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(value) else { return nil }
                scalars.append(scalar)
            default:
                return nil
            }
        }
        return nil
    }
}
