/// A title split into its base and the `(Series, #n)` suffix Goodreads and StoryGraph append.
enum SeriesTitle {
    /// `Dune (Dune, #1)`, `1Q84 (1Q84, #1-3)`, `Sistah Samurai (The Champloo Mixes, Mix #1)` (the
    /// label after the last comma dropped); `(Spanish Edition)` is part of the title. On bytes:
    /// parentheses, `#` and `,` are ASCII, so safe cut points in UTF-8.
    static func ranges(in bytes: UnsafeBufferPointer<UInt8>, title: Range<Int>)
        -> (base: Range<Int>, series: Range<Int>, position: Range<Int>)?
    {
        let title = CellBytes.trimmed(bytes, title)
        guard !title.isEmpty, bytes[title.upperBound - 1] == UInt8(ascii: ")") else { return nil }
        var depth = 0
        var open: Int?
        for index in title.reversed() {
            if bytes[index] == UInt8(ascii: ")") { depth += 1 }
            if bytes[index] == UInt8(ascii: "(") {
                depth -= 1
                if depth == 0 {
                    open = index
                    break
                }
            }
        }
        guard let open, open > title.lowerBound else { return nil }
        let inside = (open + 1)..<(title.upperBound - 1)
        guard let hash = inside.last(where: { bytes[$0] == UInt8(ascii: "#") }) else { return nil }
        let position = CellBytes.trimmed(bytes, (hash + 1)..<inside.upperBound)
        guard isPosition(UnsafeBufferPointer(rebasing: bytes[position])) else { return nil }
        var label = inside.lowerBound..<hash
        if let comma = label.last(where: { bytes[$0] == UInt8(ascii: ",") }) { label = label.lowerBound..<comma }
        let series = CellBytes.trimmed(bytes, label)
        let base = CellBytes.trimmed(bytes, title.lowerBound..<open)
        guard !series.isEmpty, !base.isEmpty else { return nil }
        return (base, series, position)
    }

    /// `1`, `2.5`, `1-3`, `0.5-2`.
    static func isPosition(_ bytes: some Collection<UInt8>) -> Bool {
        var dashes = 0, dots = 0, digits = 0  // dots in the current part, digits in the current piece
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                digits += 1
            case UInt8(ascii: "."):
                guard digits > 0, dots == 0 else { return false }
                dots = 1
                digits = 0
            case UInt8(ascii: "-"):
                guard digits > 0, dashes == 0 else { return false }
                dashes = 1
                dots = 0
                digits = 0
            default:
                return false
            }
        }
        return digits > 0
    }
}
