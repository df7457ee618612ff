/// ISBN clean-up for catalog data: dumps hold hyphenated, spaced and invalid values.
enum ISBN {
    /// The canonical ISBN-13 of an ISBN-10 or ISBN-13 written with any separators, or nil if the
    /// value does not validate.
    static func canonical13(_ raw: String) -> String? {
        var digits: [UInt8] = []
        digits.reserveCapacity(13)
        for byte in raw.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits.append(byte - 48)
            case UInt8(ascii: "X"), UInt8(ascii: "x"): digits.append(10)
            case UInt8(ascii: "-"), UInt8(ascii: " "): continue
            default: return nil
            }
            if digits.count > 13 { return nil }
        }
        switch digits.count {
        case 13:
            guard !digits.contains(10), check13(digits.prefix(12)) == digits[12] else { return nil }
            return String(digits.map { Character(Unicode.Scalar($0 + 48)) })
        case 10:
            guard !digits.prefix(9).contains(10) else { return nil }
            var sum = 0
            for (index, digit) in digits.enumerated() { sum += Int(digit) * (10 - index) }
            guard sum % 11 == 0 else { return nil }
            let body = [9, 7, 8] + digits.prefix(9)
            return String((body + [check13(body[...])]).map { Character(Unicode.Scalar($0 + 48)) })
        default:
            return nil
        }
    }

    private static func check13(_ digits: ArraySlice<UInt8>) -> UInt8 {
        var sum = 0
        for (offset, digit) in digits.enumerated() { sum += Int(digit) * (offset % 2 == 0 ? 1 : 3) }
        return UInt8((10 - sum % 10) % 10)
    }
}
