extension StringProtocol {
    /// Without edge spaces, tabs, line ends and no-break spaces (`CellBytes.trimmed`).
    var trimmingSpaces: Substring { asSubstring.trimmedBytes }

    /// Split at every `separator` byte (ASCII), pieces trimmed, empty pieces dropped.
    func splitTrimmed(_ separator: UInt8) -> [Substring] {
        asSubstring.withBytes { CellBytes.splitTrimmed($0, 0..<$0.count, separator, $1) }
    }

    private var asSubstring: Substring { self as? Substring ?? (self as? String)?[...] ?? String(self)[...] }
}

extension Substring {
    var trimmedBytes: Substring {
        withBytes { bytes, piece in piece(CellBytes.trimmed(bytes, 0..<bytes.count)) }
    }

    /// Calls `body` with the text's UTF-8 and a function making a range of it a piece of the text,
    /// so the byte-level rules serve strings too (measured no slower than walking `utf8` indices).
    func withBytes<Result>(_ body: (UnsafeBufferPointer<UInt8>, (Range<Int>) -> Substring) -> Result) -> Result {
        var copy = self
        return copy.withUTF8 { bytes in
            body(bytes) { range in
                let start = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
                return self[start..<utf8.index(start, offsetBy: range.count)]
            }
        }
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
