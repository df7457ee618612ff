/// A title split into its base and the `(Series, #n)` suffix Goodreads and StoryGraph append.
public struct SeriesTitle: Equatable, Sendable {
    public var base: String
    public var series: String
    public var position: String

    public init(base: String, series: String, position: String) {
        self.base = base
        self.series = series
        self.position = position
    }

    /// Parses the last parenthesised group of `title` when it holds a `#` position:
    /// `Dune (Dune, #1)`, `Waypoint Kangaroo (Kangaroo #1)`, `1Q84 (1Q84, #1-3)`,
    /// `Sistah Samurai (The Champloo Mixes, Mix #1)` (the label after the last comma is dropped).
    /// Parentheses without a `#n` (`(Spanish Edition)`) are part of the title, not a series.
    public init?(parsing title: String) {
        // Bytes, not Characters: parentheses, `#` and `,` are ASCII, so byte positions are safe cut points.
        let bytes = Array(title.trimmingSpaces.utf8)
        guard bytes.last == UInt8(ascii: ")") else { return nil }
        var depth = 0
        var open: Int?
        for index in stride(from: bytes.count - 1, through: 0, by: -1) {
            if bytes[index] == UInt8(ascii: ")") { depth += 1 }
            if bytes[index] == UInt8(ascii: "(") {
                depth -= 1
                if depth == 0 {
                    open = index
                    break
                }
            }
        }
        guard let open, open > 0 else { return nil }
        let inside = bytes[(open + 1)..<(bytes.count - 1)]
        guard let hash = inside.lastIndex(of: UInt8(ascii: "#")) else { return nil }
        let position = String(decoding: inside[(hash + 1)...], as: UTF8.self).trimmingSpaces
        guard Self.isPosition(position) else { return nil }
        var label = inside[..<hash]
        if let comma = label.lastIndex(of: UInt8(ascii: ",")) { label = label[..<comma] }
        let series = String(decoding: label, as: UTF8.self).trimmingSpaces
        let base = String(decoding: bytes[..<open], as: UTF8.self).trimmingSpaces
        guard !series.isEmpty, !base.isEmpty else { return nil }
        self.base = base
        self.series = series
        self.position = position
    }

    /// `1`, `2.5`, `1-3`, `0.5-2`: digits, optional decimal part, optional range.
    static func isPosition(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == 0x2D || $0 == 0x2E }) else { return false }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2 else { return false }
        return parts.allSatisfy { part in
            let pieces = part.split(separator: ".", omittingEmptySubsequences: false)
            return (pieces.count == 1 || pieces.count == 2) && pieces.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCIIDigitCharacter) }
        }
    }
}

extension Character {
    var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
