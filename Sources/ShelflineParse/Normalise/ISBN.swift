/// What one export cell holding a book identifier turned out to be.
public enum IdentifierCell: Equatable, Sendable {
    case empty
    /// A valid ISBN-13 (digits only).
    case isbn13(String)
    /// A valid ISBN-10 (digits, maybe a final `X`), possibly restored from spreadsheet-stripped zeros.
    case isbn10(String)
    /// An Amazon ASIN (`B0…`): an identifier, but not an ISBN.
    case asin(String)
    /// Something that is not a valid identifier (bad check digit, scientific notation, junk); kept raw.
    case invalid(String)
}

/// ISBN canonicalisation: unwrap export quirks, validate check digits, convert between forms.
public enum ISBN {
    /// Classifies one cell: strips the Goodreads `="…"` wrapper, LibraryThing `[…]` brackets,
    /// hyphens and spaces; validates check digits; restores leading zeros only when the padded
    /// value validates; refuses scientific notation (`9.78053E+12`, a spreadsheet's rounding).
    public static func classify(_ cell: String) -> IdentifierCell {
        var text = Substring(cell).trimmingSpaces
        if text.hasPrefix("=\"") && text.hasSuffix("\"") && text.count >= 3 {
            text = text.dropFirst(2).dropLast()
        } else if text.hasPrefix("\"") && text.hasSuffix("\"") && text.count >= 2 {
            text = text.dropFirst().dropLast()
        }
        if text.hasPrefix("[") && text.hasSuffix("]") {
            text = text.dropFirst().dropLast()
        }
        text = text.trimmingSpaces
        guard !text.isEmpty else { return .empty }
        let raw = String(text)
        if isASIN(text) { return .asin(raw) }
        var digits: [UInt8] = []
        digits.reserveCapacity(13)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits.append(byte)
            case UInt8(ascii: "X"), UInt8(ascii: "x"): digits.append(UInt8(ascii: "X"))
            case UInt8(ascii: "-"), UInt8(ascii: " "): continue
            default: return .invalid(raw)  // letters, dots, `E+`: not an ISBN
            }
        }
        // An X may only be the last character of an ISBN-10.
        if let x = digits.firstIndex(of: UInt8(ascii: "X")), x != digits.count - 1 { return .invalid(raw) }
        switch digits.count {
        case 13:
            let value = String(decoding: digits, as: UTF8.self)
            return isValid13(value) ? .isbn13(value) : .invalid(raw)
        case 10:
            let value = String(decoding: digits, as: UTF8.self)
            return isValid10(value) ? .isbn10(value) : .invalid(raw)
        case 8, 9:
            // A spreadsheet read the ISBN-10 as a number and dropped its leading zeros.
            let padded = String(repeating: "0", count: 10 - digits.count) + String(decoding: digits, as: UTF8.self)
            return isValid10(padded) ? .isbn10(padded) : .invalid(raw)
        default:
            return .invalid(raw)
        }
    }

    /// `B` followed by nine uppercase letters or digits, at least one a digit (`B07MNWKF2M`).
    public static func isASIN(_ text: Substring) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 10, bytes[0] == UInt8(ascii: "B") else { return false }
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
        let bytes = Array(value.utf8)
        guard bytes.count == 13, bytes.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return false }
        guard value.hasPrefix("978") || value.hasPrefix("979") else { return false }
        var sum = 0
        for (index, byte) in bytes.enumerated() {
            sum += Int(byte - 48) * (index % 2 == 0 ? 1 : 3)
        }
        return sum % 10 == 0
    }

    public static func isValid10(_ value: String) -> Bool {
        let bytes = Array(value.utf8)
        guard bytes.count == 10 else { return false }
        var sum = 0
        for (index, byte) in bytes.enumerated() {
            let digit: Int
            if byte >= 48 && byte <= 57 {
                digit = Int(byte - 48)
            } else if byte == UInt8(ascii: "X") && index == 9 {
                digit = 10
            } else {
                return false
            }
            sum += digit * (10 - index)
        }
        return sum % 11 == 0
    }

    /// The ISBN-13 of a valid ISBN-10 (prefix 978, new check digit).
    public static func thirteen(from isbn10: String) -> String {
        let body = "978" + isbn10.prefix(9)
        var sum = 0
        for (index, byte) in body.utf8.enumerated() {
            sum += Int(byte - 48) * (index % 2 == 0 ? 1 : 3)
        }
        return body + String((10 - sum % 10) % 10)
    }

    /// The ISBN-10 of a valid ISBN-13, when it has one (only the 978 prefix does).
    public static func ten(from isbn13: String) -> String? {
        guard isbn13.hasPrefix("978") else { return nil }
        let body = isbn13.dropFirst(3).prefix(9)
        var sum = 0
        for (index, byte) in body.utf8.enumerated() {
            sum += Int(byte - 48) * (10 - index)
        }
        let check = (11 - sum % 11) % 11
        return String(body) + (check == 10 ? "X" : String(check))
    }

    /// The identifiers of one row, from its cells in priority order (e.g. ISBN13 before ISBN).
    public struct Resolution: Equatable, Sendable {
        public var isbn13: String?
        public var isbn10: String?
        public var raw: String?
        public var asin: String?
    }

    /// Combines cells: the first valid ISBN wins (an ISBN-10 is converted); the ISBN-10 comes from
    /// a cell when one has it, else is derived; the first invalid value is kept raw only when no
    /// valid ISBN was found; the first ASIN is kept.
    public static func resolve(_ cells: [IdentifierCell]) -> Resolution {
        var result = Resolution()
        var firstInvalid: String?
        for cell in cells {
            switch cell {
            case .empty: continue
            case .isbn13(let value):
                if result.isbn13 == nil { result.isbn13 = value }
            case .isbn10(let value):
                if result.isbn13 == nil { result.isbn13 = thirteen(from: value) }
                if result.isbn10 == nil && thirteen(from: value) == result.isbn13 { result.isbn10 = value }
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

extension Character {
    /// Spaces a cell may carry at its edges: space, tab, line ends, no-break space.
    var isEdgeSpace: Bool {
        self == " " || self == "\t" || self == "\n" || self == "\r" || self == "\r\n" || self == "\u{A0}"
    }
}

extension Substring {
    /// Without leading and trailing spaces, tabs and line ends.
    var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first.isEdgeSpace { text = text.dropFirst() }
        while let last = text.last, last.isEdgeSpace { text = text.dropLast() }
        return text
    }
}

extension String {
    var trimmingSpaces: String {
        guard let first = utf8.first, let last = utf8.last else { return self }
        @inline(__always) func plain(_ byte: UInt8) -> Bool { byte > 0x20 && byte != 0xC2 && byte != 0xA0 }
        if plain(first) && plain(last) { return self }
        return String(Substring(self).trimmingSpaces)
    }
}
