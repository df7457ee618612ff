/// Author names as exports write them.
public enum PersonName {
    /// Whitespace runs collapsed to one space, trimmed: Goodreads writes `Amy    Wallace`.
    public static func collapse(_ text: some StringProtocol) -> String {
        if isCollapsed(utf8: text.utf8) { return String(text) }
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return collapse(ascii: text.utf8) }
        return text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// On bytes (ASCII's whitespace is 09–0D and the space): through `Character` measured slower.
    private static func collapse(ascii utf8: some Collection<UInt8>) -> String {
        String(unsafeUninitializedCapacity: utf8.count) { output in
            var count = 0, pendingSpace = false
            for byte in utf8 {
                if byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) {
                    pendingSpace = count > 0
                } else {
                    if pendingSpace {
                        output[count] = 0x20
                        count += 1
                    }
                    pendingSpace = false
                    output[count] = byte
                    count += 1
                }
            }
            return count
        }
    }

    /// Nothing to collapse, checked on bytes: the usual case, so it must be cheap.
    static func isCollapsed(utf8: some Collection<UInt8>) -> Bool {
        var previousSpace = true  // a leading space is not collapsed
        for byte in utf8 {
            if byte == 0x20 {
                if previousSpace { return false }
                previousSpace = true
            } else if byte < 0x20 || byte == 0xC2 || byte == 0xE2 || byte == 0xE3 || byte == 0x7F {
                return false  // controls; C2 may start NBSP/NEL, E2/E3 the Unicode spaces: decide slowly
            } else {
                previousSpace = false
            }
        }
        return !previousSpace || utf8.isEmpty
    }

    /// `Last, First` → `First Last`; names with several commas are ambiguous (`Dumas, Alexandre,
    /// père`): kept as written.
    public static func uninverted(_ name: String) -> String {
        let parts = name.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return name }
        let last = parts[0].trimmingSpaces, first = parts[1].trimmingSpaces
        guard !last.isEmpty, !first.isEmpty else { return name }
        return "\(first) \(last)"
    }

    /// Names split on `separator`, each collapsed; empties dropped.
    public static func list(_ cell: some StringProtocol, separator: Character = ",") -> [String] {
        cell.splitTrimmed(separator.asciiValue ?? UInt8(ascii: ",")).compactMap { item in
            let name = collapse(item)
            return name.isEmpty ? nil : name
        }
    }
}
