extension StringProtocol {
    /// Without edge spaces, tabs, line ends and no-break spaces (scanned as bytes).
    var trimmingSpaces: Substring {
        if let text = self as? Substring { return text.trimmedBytes }
        if let text = self as? String { return text[...].trimmedBytes }
        return String(self)[...].trimmedBytes
    }
}

extension Substring {
    /// On the concrete type, whose UTF-8 view can be walked from both ends.
    var trimmedBytes: Substring {
        let bytes = utf8
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end {
            let byte = bytes[start]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                start = bytes.index(after: start)
            } else if byte == 0xC2, bytes.index(after: start) < end, bytes[bytes.index(after: start)] == 0xA0 {
                start = bytes.index(start, offsetBy: 2)
            } else {
                break
            }
        }
        while start < end {
            let last = bytes.index(before: end)
            let byte = bytes[last]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                end = last
            } else if byte == 0xA0, last > start, bytes[bytes.index(before: last)] == 0xC2 {
                end = bytes.index(before: last)
            } else {
                break
            }
        }
        return self[start..<end]
    }
}

extension StringProtocol {
    /// Split at every `separator` byte (ASCII), pieces trimmed, empty pieces dropped.
    func splitTrimmed(_ separator: UInt8) -> [Substring] {
        var pieces: [Substring] = []
        let bytes = utf8
        var pieceStart = bytes.startIndex
        var index = bytes.startIndex
        while true {
            if index == bytes.endIndex || bytes[index] == separator {
                let piece = self[pieceStart..<index].trimmingSpaces
                if !piece.isEmpty { pieces.append(piece) }
                if index == bytes.endIndex { break }
                pieceStart = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        return pieces
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
