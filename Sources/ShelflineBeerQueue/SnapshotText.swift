/// The one rule for text that goes into a beer-queue snapshot.
public enum SnapshotText {
    /// `text` without control characters (C0, DEL, C1; a NUL from `&#0;` or a raw byte included),
    /// with every run of whitespace — tabs and line breaks too — collapsed to one space and trimmed.
    public static func clean(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !result.isEmpty
                continue
            }
            if isControl(scalar) { continue }
            if pendingSpace {
                result.append(" ")
                pendingSpace = false
            }
            result.append(scalar)
        }
        return String(result)
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
