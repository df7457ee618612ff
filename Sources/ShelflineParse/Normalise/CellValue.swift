/// Small typed readings of cells: ratings, counts, yes/no.
public enum CellValue {
    /// Stars: `4`, `4.5`; `0` is how exports say "unrated" → nil, as is anything outside 0–5.
    public static func rating(_ cell: some StringProtocol) -> Double? {
        let text = cell.trimmingSpaces
        guard !text.isEmpty, let value = Double(text), value.isFinite, value > 0, value <= 5 else { return nil }
        return value
    }

    /// A single digit (the usual cell) is read without making a string.
    static func rating(bytes cell: UnsafeBufferPointer<UInt8>) -> Double? {
        let text = CellBytes.trimmed(cell, 0..<cell.count)
        if text.count == 1 {
            let digit = cell[text.lowerBound]
            if digit >= 48 && digit <= 57 { return digit > 48 && digit <= 53 ? Double(digit - 48) : nil }
        }
        return rating(String(decoding: cell, as: UTF8.self))
    }

    /// A whole number, allowing a trailing unit (`590 p.`).
    public static func count(_ cell: some StringProtocol) -> Int? {
        var text = String(cell)
        return text.withUTF8 { count(bytes: $0) }
    }

    static func count(bytes cell: UnsafeBufferPointer<UInt8>) -> Int? {
        var value = 0
        var digits = 0
        for index in CellBytes.trimmed(cell, 0..<cell.count) {
            let byte = cell[index]
            if byte >= 48 && byte <= 57 {
                if digits >= 9 { return nil }
                value = value * 10 + Int(byte - 48)
                digits += 1
            } else {
                break
            }
        }
        return digits > 0 ? value : nil
    }

    /// `Yes`/`true`/`y`/`x`/a positive count → true; `No`/`0`/`false`/empty → false.
    public static func owned(_ cell: some StringProtocol) -> Bool {
        // Most cells are a copy count: read it without lowercasing.
        if let first = cell.utf8.first, first >= 48 && first <= 57 { return (count(cell) ?? 0) > 0 }
        let text = String(cell.trimmingSpaces).lowercased()
        switch text {
        case "yes", "y", "true", "x", "owned": return true
        default: return (count(text) ?? 0) > 0
        }
    }
}
