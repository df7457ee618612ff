/// What one export cell holding a book identifier turned out to be.
public enum IdentifierCell: Equatable, Sendable {
    case empty
    /// Digits only.
    case isbn13(String)
    /// Digits, maybe a final `X`, possibly restored from spreadsheet-stripped zeros.
    case isbn10(String)
    /// An Amazon ASIN (`B0…`).
    case asin(String)
    /// A bad check digit, scientific notation, junk; kept raw.
    case invalid(String)
}

/// The one ISBN implementation, with one rule: an ISBN-13 is 13 digits with the 978 or 979 prefix,
/// an ISBN-10 9 digits and a check character (`X` or `x` last only), each with a valid check digit;
/// hyphens and spaces are separators. An ISBN-10 converts to its 978 ISBN-13.
public enum ISBN {
    /// Strips Goodreads' `="…"` wrapper and LibraryThing's `[…]`; restores leading zeros only when
    /// the padded value validates; refuses scientific notation (a spreadsheet's rounding).
    public static func classify(_ cell: String) -> IdentifierCell {
        var cell = cell
        return cell.withUTF8 { classify(bytes: $0) }
    }

    /// Without intermediate arrays: with them, this was 4 % of parse's CPU.
    public static func classify(bytes cell: UnsafeBufferPointer<UInt8>) -> IdentifierCell {
        var bytes = cell[...]
        @inline(__always) func trim() {
            while let first = bytes.first, first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D {
                bytes = bytes.dropFirst()
            }
            while let last = bytes.last, last == 0x20 || last == 0x09 || last == 0x0A || last == 0x0D { bytes = bytes.dropLast() }
        }
        trim()
        let quote = UInt8(ascii: "\"")
        if bytes.count >= 3 && bytes.first == UInt8(ascii: "=") && bytes[bytes.startIndex + 1] == quote && bytes.last == quote {
            bytes = bytes.dropFirst(2).dropLast()
        } else if bytes.count >= 2 && bytes.first == quote && bytes.last == quote {
            bytes = bytes.dropFirst().dropLast()
        }
        if bytes.first == UInt8(ascii: "[") && bytes.last == UInt8(ascii: "]") {
            bytes = bytes.dropFirst().dropLast()
        }
        trim()
        guard !bytes.isEmpty else { return .empty }
        var raw: String { String(decoding: bytes, as: UTF8.self) }
        if isASIN(bytes: bytes) { return .asin(raw) }
        var count = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "X"), UInt8(ascii: "x"): count += 1
            case UInt8(ascii: "-"), UInt8(ascii: " "): continue
            default: return .invalid(raw)  // letters, dots, `E+`: not an ISBN
            }
        }
        guard count == 13 || count == 10 || count == 9 || count == 8 else { return .invalid(raw) }
        // Checked in a stack buffer, a string only when valid: string first was most of the cost
        // of a row's ISBNs (docs/performance.md).
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 13) { buffer in
            // A spreadsheet read the ISBN-10 as a number and dropped its leading zeros.
            let padding = count < 10 ? 10 - count : 0
            for index in 0..<padding { buffer[index] = UInt8(ascii: "0") }
            var index = padding
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): buffer[index] = byte
                case UInt8(ascii: "X"), UInt8(ascii: "x"): buffer[index] = UInt8(ascii: "X")
                default: continue
                }
                index += 1
            }
            let digits = UnsafeBufferPointer(rebasing: buffer[..<index])
            // An X may only be the last character of an ISBN-10.
            if let x = digits.firstIndex(of: UInt8(ascii: "X")), x != index - 1 { return .invalid(raw) }
            if index == 13 {
                return isValid13(bytes: digits) ? .isbn13(String(decoding: digits, as: UTF8.self)) : .invalid(raw)
            }
            return isValid10(bytes: digits) ? .isbn10(String(decoding: digits, as: UTF8.self)) : .invalid(raw)
        }
    }

    /// Nil for no valid ISBN; no unwrapping or zero padding: for values already identifiers
    /// (catalog dumps, API answers, parsed records).
    public static func canonical13(_ raw: String) -> String? {
        var digits: [UInt8] = []
        digits.reserveCapacity(13)
        for byte in raw.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits.append(byte)
            case UInt8(ascii: "X"), UInt8(ascii: "x"): digits.append(UInt8(ascii: "X"))
            case UInt8(ascii: "-"), UInt8(ascii: " "): continue
            default: return nil
            }
            if digits.count > 13 { return nil }
        }
        let text = String(decoding: digits, as: UTF8.self)
        switch digits.count {
        case 13: return isValid13(text) ? text : nil
        case 10: return isValid10(text) ? thirteen(from: text) : nil
        default: return nil
        }
    }

    /// `B` followed by nine uppercase letters or digits, at least one a digit (`B07MNWKF2M`).
    static func isASIN(bytes: some Collection<UInt8>) -> Bool {
        guard bytes.count == 10, bytes.first == UInt8(ascii: "B") else { return false }
        var sawDigit = false
        for byte in bytes.dropFirst() {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                sawDigit = true
            } else if !(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) {
                return false
            }
        }
        return sawDigit
    }

    public static func isValid13(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { isValid13(bytes: $0) }
    }

    public static func isValid10(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { isValid10(bytes: $0) }
    }

    static func isValid13(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 13, bytes[0] == UInt8(ascii: "9"), bytes[1] == UInt8(ascii: "7") else { return false }
        guard bytes[2] == UInt8(ascii: "8") || bytes[2] == UInt8(ascii: "9") else { return false }
        var sum = 0
        for index in 0..<13 {
            let digit = bytes[index] &- 48
            guard digit <= 9 else { return false }
            sum += Int(digit) * (index & 1 == 0 ? 1 : 3)
        }
        return sum % 10 == 0
    }

    static func isValid10(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 10 else { return false }
        var sum = 0
        for index in 0..<10 {
            var digit = Int(bytes[index] &- 48)
            if digit > 9 {
                guard bytes[index] == UInt8(ascii: "X") && index == 9 else { return false }
                digit = 10
            }
            sum += digit * (10 - index)
        }
        return sum % 11 == 0
    }

    /// Of a valid ISBN-10. Written into the string directly: concatenation was 2 % of parse's CPU.
    public static func thirteen(from isbn10: String) -> String {
        var isbn10 = isbn10
        return isbn10.withUTF8 { ten in
            String(unsafeUninitializedCapacity: 13) { output in
                output[0] = 57; output[1] = 55; output[2] = 56  // 978
                var index = 3
                for byte in ten.prefix(9) {
                    output[index] = byte
                    index += 1
                }
                var sum = 0
                for position in 0..<index {
                    sum += Int(output[position] &- 48) * (position & 1 == 0 ? 1 : 3)
                }
                output[index] = UInt8(48 + (10 - sum % 10) % 10)
                return index + 1
            }
        }
    }

    /// Only the 978 prefix has one.
    public static func ten(from isbn13: String) -> String? {
        guard isbn13.utf8.starts(with: "978".utf8) else { return nil }
        return String(unsafeUninitializedCapacity: 10) { output in
            var sum = 0
            var index = 0
            for byte in isbn13.utf8.dropFirst(3).prefix(9) {
                output[index] = byte
                sum += Int(byte &- 48) * (10 - index)
                index += 1
            }
            let check = (11 - sum % 11) % 11
            output[index] = check == 10 ? UInt8(ascii: "X") : UInt8(48 + check)
            return index + 1
        }
    }

    /// The identifiers of one row, from its cells in priority order.
    public struct Resolution: Equatable, Sendable {
        public var isbn13: String?
        public var isbn10: String?
        public var raw: String?
        public var asin: String?
    }

    /// The first valid ISBN wins; the ISBN-10 comes from a cell when one has it, else is derived;
    /// the first invalid value is kept only when no ISBN was found; the first ASIN is kept.
    public static func resolve(_ cells: [IdentifierCell]) -> Resolution {
        var result = Resolution()
        var firstInvalid: String?
        for cell in cells {
            switch cell {
            case .empty: continue
            case .isbn13(let value):
                if result.isbn13 == nil { result.isbn13 = value }
            case .isbn10(let value):
                let converted = thirteen(from: value)
                if result.isbn13 == nil { result.isbn13 = converted }
                if result.isbn10 == nil && converted == result.isbn13 { result.isbn10 = value }
            case .asin(let value):
                if result.asin == nil { result.asin = value }
            case .invalid(let value):
                if firstInvalid == nil { firstInvalid = value }
            }
        }
        if let isbn13 = result.isbn13, result.isbn10 == nil {
            result.isbn10 = ten(from: isbn13)
        }
        if result.isbn13 == nil { result.raw = firstInvalid }
        return result
    }
}
