/// `trimmingSpaces` and `splitTrimmed` for text that stays in the row's buffer: no `String` made.
enum CellBytes {
    /// Without edge spaces, tabs, line ends and no-break spaces (C2 A0).
    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Range<Int> {
        var start = range.lowerBound, end = range.upperBound
        while start < end {
            let byte = bytes[start]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                start += 1
            } else if byte == 0xC2, start + 1 < end, bytes[start + 1] == 0xA0 {
                start += 2
            } else {
                break
            }
        }
        while start < end {
            let byte = bytes[end - 1]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                end -= 1
            } else if byte == 0xA0, end - 1 > start, bytes[end - 2] == 0xC2 {
                end -= 2
            } else {
                break
            }
        }
        return start..<end
    }

    /// Pieces trimmed, empty pieces dropped.
    static func splitTrimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ separator: UInt8) -> [Range<Int>] {
        splitTrimmed(bytes, range, separator) { $0 }
    }

    /// Each piece made into the element the caller keeps, in one array.
    @inline(__always)
    static func splitTrimmed<Piece>(
        _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ separator: UInt8, _ piece: (Range<Int>) -> Piece
    ) -> [Piece] {
        var pieces: [Piece] = []
        var pieceStart = range.lowerBound
        for index in range where bytes[index] == separator {
            let trimmedPiece = trimmed(bytes, pieceStart..<index)
            if !trimmedPiece.isEmpty { pieces.append(piece(trimmedPiece)) }
            pieceStart = index + 1
        }
        let trimmedPiece = trimmed(bytes, pieceStart..<range.upperBound)
        if !trimmedPiece.isEmpty { pieces.append(piece(trimmedPiece)) }
        return pieces
    }
}
