import ShelflineCore

/// Exclusive shelves (reading states) across exports.
public enum ShelfName {
    public static let read = "read"
    public static let currentlyReading = "currently-reading"
    public static let toRead = "to-read"
    public static let didNotFinish = "did-not-finish"

    /// Each export's spelling of the four reading states; any other value is a custom shelf, kept.
    public static func normalise(_ cell: some StringProtocol) -> String? {
        let text = cell.trimmingSpaces
        guard !text.isEmpty else { return nil }
        // The canonical spellings are by far the most common: compare bytes, skip lowercasing.
        for name in [read, toRead, currentlyReading, didNotFinish] where text.utf8.elementsEqual(name.utf8) {
            return name
        }
        // Custom shelves are usually lowercase ASCII already: lowercasing each measured slower.
        let plain = text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !($0 >= 0x41 && $0 <= 0x5A) && $0 != 0x5F }
        let key = plain ? String(text) : String(String(text).lowercased().map { $0 == " " || $0 == "_" ? "-" : $0 })
        switch key {
        case "read", "finished", "already-read", "have-read": return read
        case "currently-reading", "reading", "in-progress", "started": return currentlyReading
        case "to-read", "want-to-read", "planned", "tbr", "to-be-read", "wishlist": return toRead
        case "did-not-finish", "dnf", "abandoned", "did-not-finish-(dnf)": return didNotFinish
        default: return String(text)
        }
    }

    /// The reading state an export without one implies: a finish says read, then a stop
    /// did-not-finish, then a start currently reading.
    static func fromDates(_ reads: [ReadSpan], stopped: Bool = false) -> String? {
        if reads.contains(where: { $0.end != nil }) { return read }
        if stopped { return didNotFinish }
        if reads.contains(where: { $0.start != nil }) { return currentlyReading }
        return nil
    }
}

extension ShelfPosition {
    /// Goodreads' `Bookshelves with positions` item: `to-read (#339)`, or a shelf alone.
    static func parse(_ item: String) -> ShelfPosition {
        let text = item.trimmingSpaces
        guard text.hasSuffix(")"), let hash = text.lastIndex(of: "#") else { return ShelfPosition(shelf: String(text)) }
        let digits = text[text.index(after: hash)..<text.index(before: text.endIndex)]
        let head = text[..<hash]
        guard head.hasSuffix(" ("), !digits.isEmpty, digits.count <= 9,
            digits.allSatisfy({ $0.isASCII && $0.isNumber }), let position = Int(digits)
        else {
            return ShelfPosition(shelf: String(text))
        }
        return ShelfPosition(shelf: String(head.dropLast(2).trimmingSpaces), position: position)
    }

    /// An ASCII item (nearly every one) is read as bytes, where the rules above see the same
    /// thing; walking `Character`s measured much slower.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> ShelfPosition {
        func text(_ range: Range<Int>) -> String { String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self) }
        guard !range.contains(where: { bytes[$0] >= 0x80 }) else { return parse(text(range)) }
        let close = range.upperBound - 1
        guard !range.isEmpty, bytes[close] == UInt8(ascii: ")"),
            let hash = (range.lowerBound..<close).last(where: { bytes[$0] == UInt8(ascii: "#") })
        else { return ShelfPosition(shelf: text(range)) }
        let digits = hash + 1..<close
        guard hash - range.lowerBound >= 2, bytes[hash - 2] == UInt8(ascii: " "), bytes[hash - 1] == UInt8(ascii: "("),
            !digits.isEmpty, digits.count <= 9, digits.allSatisfy({ bytes[$0] >= 0x30 && bytes[$0] <= 0x39 })
        else { return ShelfPosition(shelf: text(range)) }
        let position = digits.reduce(0) { $0 * 10 + Int(bytes[$1] - 0x30) }
        return ShelfPosition(shelf: text(CellBytes.trimmed(bytes, range.lowerBound..<hash - 2)), position: position)
    }
}
