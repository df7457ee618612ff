/// Exclusive shelves (reading states) across exports.
public enum ShelfName {
    public static let read = "read"
    public static let currentlyReading = "currently-reading"
    public static let toRead = "to-read"
    public static let didNotFinish = "did-not-finish"

    /// Maps each export's spelling of the four reading states to one name; any other value is a
    /// custom exclusive shelf and is kept as written (trimmed). Empty → nil.
    public static func normalise(_ cell: some StringProtocol) -> String? {
        let text = cell.trimmingSpaces
        guard !text.isEmpty else { return nil }
        // The canonical spellings are by far the most common: compare bytes, skip lowercasing.
        for name in [read, toRead, currentlyReading, didNotFinish] where text.utf8.elementsEqual(name.utf8) {
            return name
        }
        let key = String(text).lowercased().map { $0 == " " || $0 == "_" ? "-" : $0 }
        switch String(key) {
        case "read", "finished", "already-read", "have-read": return read
        case "currently-reading", "reading", "in-progress", "started": return currentlyReading
        case "to-read", "want-to-read", "planned", "tbr", "to-be-read", "wishlist": return toRead
        case "did-not-finish", "dnf", "abandoned", "did-not-finish-(dnf)": return didNotFinish
        default: return String(text)
        }
    }

    /// A comma-separated tag or shelf list, trimmed, empties dropped, order kept.
    public static func list(_ cell: some StringProtocol, separator: Character = ",") -> [String] {
        cell.splitTrimmed(separator.asciiValue ?? UInt8(ascii: ",")).map { String($0) }
    }
}
