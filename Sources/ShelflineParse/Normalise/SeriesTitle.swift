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
        let characters = Array(title.trimmingSpaces)
        guard characters.last == ")" else { return nil }
        var depth = 0
        var open: Int?
        for index in stride(from: characters.count - 1, through: 0, by: -1) {
            if characters[index] == ")" { depth += 1 }
            if characters[index] == "(" {
                depth -= 1
                if depth == 0 {
                    open = index
                    break
                }
            }
        }
        guard let open, open > 0 else { return nil }
        let inside = String(characters[(open + 1)..<(characters.count - 1)])
        guard let hash = inside.lastIndex(of: "#") else { return nil }
        let position = String(inside[inside.index(after: hash)...]).trimmingSpaces
        guard Self.isPosition(position) else { return nil }
        var label = Substring(inside[..<hash]).trimmingSpaces
        if let comma = label.lastIndex(of: ",") {
            label = label[..<comma].trimmingSpaces
        }
        let base = String(characters[..<open]).trimmingSpaces
        guard !label.isEmpty, !base.isEmpty else { return nil }
        self.base = base
        series = String(label)
        self.position = position
    }

    /// `1`, `2.5`, `1-3`, `0.5-2`: digits, optional decimal part, optional range.
    static func isPosition(_ text: String) -> Bool {
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
