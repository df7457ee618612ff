/// The one rule for text that goes into a beer-queue snapshot.
public enum SnapshotText {
    /// Without control characters (C0, DEL, C1), every run of whitespace collapsed to one space, trimmed.
    public static func clean(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !result.isEmpty
                continue
            }
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { continue }
            if pendingSpace {
                result.append(" ")
                pendingSpace = false
            }
            result.append(scalar)
        }
        return String(result)
    }
}
