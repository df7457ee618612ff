import ShelflineCore

/// Dates as exports write them, normalised to ISO `yyyy-mm-dd`.
public enum ExportDate {
    /// `2020/1/5`, `[2007-04-16]`, `2024-03-01T13:01:12.937`, US `10/25/2020`. Not a real calendar
    /// date (or only a year or month): nil, since the raw row keeps it and a guess is worse.
    public static func normalise(_ cell: some StringProtocol) -> String? {
        var text = String(cell)
        return text.withUTF8 { normalise(bytes: $0) }
    }

    static func normalise(bytes cell: UnsafeBufferPointer<UInt8>) -> String? {
        var text = CellBytes.trimmed(cell, 0..<cell.count)
        if text.count >= 2 && cell[text.lowerBound] == UInt8(ascii: "[") && cell[text.upperBound - 1] == UInt8(ascii: "]") {
            text = CellBytes.trimmed(cell, (text.lowerBound + 1)..<(text.upperBound - 1))
        }
        // Three numbers separated by `/`, `-` or `.`, optionally followed by a time.
        var numbers = (0, 0, 0)
        var widths = (0, 0, 0)
        var part = 0
        for index in text {
            let byte = cell[index]
            if byte >= 48 && byte <= 57 {
                let digit = Int(byte - 48)
                switch part {
                case 0: numbers.0 = numbers.0 * 10 + digit; widths.0 += 1
                case 1: numbers.1 = numbers.1 * 10 + digit; widths.1 += 1
                default: numbers.2 = numbers.2 * 10 + digit; widths.2 += 1
                }
                if widths.0 > 4 || widths.1 > 4 || widths.2 > 4 { return nil }
            } else if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") {
                part += 1
                if part > 2 { return nil }
            } else if (byte == UInt8(ascii: "T") || byte == UInt8(ascii: " ")) && part == 2 {
                break  // a time follows the date
            } else {
                return nil
            }
        }
        guard part == 2, widths.0 > 0, widths.1 > 0, widths.2 > 0 else { return nil }
        let year: Int, month: Int, day: Int
        if widths.0 == 4 && widths.1 <= 2 && widths.2 <= 2 {
            (year, month, day) = (numbers.0, numbers.1, numbers.2)
        } else if widths.2 == 4 && widths.0 <= 2 && widths.1 <= 2 {
            (year, month, day) = (numbers.2, numbers.0, numbers.1)  // US month/day/year, as older Goodreads exports wrote it
        } else {
            return nil
        }
        guard isValid(year: year, month: month, day: day) else { return nil }
        return format(year: year, month: month, day: day)
    }

    /// `2023/05/23-2023/06/07`, `2022/08/06`, or a comma-separated list of either. A range's dash
    /// is told apart from ISO dates' dashes by trying each split point.
    public static func reads(_ cell: some StringProtocol) -> [ReadSpan] {
        var spans: [ReadSpan] = []
        for item in cell.splitTrimmed(UInt8(ascii: ",")) {
            let text = item.trimmingSpaces
            guard !text.isEmpty else { continue }
            if let date = normalise(text) {
                spans.append(ReadSpan(start: nil, end: date))
                continue
            }
            for index in text.indices where text[index] == "-" {
                let left = text[..<index].trimmingSpaces
                let right = text[text.index(after: index)...].trimmingSpaces
                let start = left.isEmpty ? nil : normalise(left)
                let end = right.isEmpty ? nil : normalise(right)
                if (start != nil || left.isEmpty) && (end != nil || right.isEmpty) && (start != nil || end != nil) {
                    spans.append(ReadSpan(start: start, end: end))
                    break
                }
            }
        }
        return spans
    }

    /// One date (the usual cell) is read without making strings of it.
    static func reads(bytes cell: UnsafeBufferPointer<UInt8>) -> [ReadSpan] {
        // `normalise` stops at a time, so a list must go the long way.
        if !cell.contains(UInt8(ascii: ",")), let date = normalise(bytes: cell) {
            return [ReadSpan(start: nil, end: date)]
        }
        return reads(String(decoding: cell, as: UTF8.self))
    }

    static func isValid(year: Int, month: Int, day: Int) -> Bool {
        guard year >= 1000 && year <= 9999, month >= 1 && month <= 12, day >= 1 else { return false }
        let days: Int
        switch month {
        case 2: days = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: days = 30
        default: days = 31
        }
        return day <= days
    }

    /// Written byte by byte: string interpolation measured slower.
    static func format(year: Int, month: Int, day: Int) -> String {
        String(unsafeUninitializedCapacity: 10) { output in
            output[0] = UInt8(48 + year / 1000)
            output[1] = UInt8(48 + year / 100 % 10)
            output[2] = UInt8(48 + year / 10 % 10)
            output[3] = UInt8(48 + year % 10)
            output[4] = UInt8(ascii: "-")
            output[5] = UInt8(48 + month / 10)
            output[6] = UInt8(48 + month % 10)
            output[7] = UInt8(ascii: "-")
            output[8] = UInt8(48 + day / 10)
            output[9] = UInt8(48 + day % 10)
            return 10
        }
    }

    /// The first run of exactly four digits in 1000–2999: `2006`, `c1999`, `1979-05`.
    static func year(bytes: some Sequence<UInt8>) -> Int? {
        var run = 0
        var value = 0
        for byte in bytes {
            if byte >= 48 && byte <= 57 {
                run += 1
                // A longer run (a barcode) stops accumulating rather than overflowing.
                if run <= 4 { value = value * 10 + Int(byte - 48) }
            } else {
                if run == 4 && value >= 1000 && value < 3000 { return value }
                run = 0
                value = 0
            }
        }
        return run == 4 && value >= 1000 && value < 3000 ? value : nil
    }
}
