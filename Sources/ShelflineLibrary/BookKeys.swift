import Crypto
import Foundation
import ShelflineCore

/// The identity keys a record or book is found by, and the stable book id derived from a key.
///
/// Two kinds of key: `isbn:<canonical ISBN-13>` (an ISBN-10 is converted, so both forms meet) and
/// `ta:<normalised title>|<normalised author surname>` for matching without (or across) ISBNs.
public enum BookKeys {
    /// `isbn:978…` from a record's ISBN-13, or its ISBN-10 converted; nil without a valid ISBN.
    public static func isbnKey(isbn13: String?, isbn10: String?) -> String? {
        if let isbn13, let canonical = canonicalISBN13(isbn13) { return "isbn:" + canonical }
        if let isbn10, let converted = BookKeys.isbn13(fromISBN10: isbn10) { return "isbn:" + converted }
        return nil
    }

    /// `ta:<title>|<author>`, or nil when the title normalises to nothing.
    public static func titleAuthorKey(title: String, author: String?, stripSubtitle: Bool = true) -> String? {
        var key = Array("ta:".utf8)
        key.reserveCapacity(title.utf8.count + 24)
        appendNormalisedTitle(title, stripSubtitle: stripSubtitle, to: &key)
        guard key.count > 3 else { return nil }
        key.append(UInt8(ascii: "|"))
        appendNormalisedAuthor(author ?? "", to: &key)
        return String(decoding: key, as: UTF8.self)
    }

    /// The stable id of a book created from `key`: `b` + 16 hex digits of SHA-256(key).
    public static func bookId(for key: String) -> String {
        idString(keyHash(key))
    }

    /// The 64 bits of a book id (`b` + 16 hex), or nil if it is not one.
    public static func idBits(_ id: String) -> UInt64? {
        guard id.utf8.count == 17, id.first == "b" else { return nil }
        return UInt64(id.dropFirst(), radix: 16)
    }

    /// The id text for 64 id bits.
    public static func idString(_ bits: UInt64) -> String {
        String(unsafeUninitializedCapacity: 17) { buffer in
            buffer[0] = UInt8(ascii: "b")
            for index in 0..<16 { buffer[1 + index] = hexDigit(bits, index) }
            return 17
        }
    }

    /// Appends the 16 lowercase hex digits of `bits` (an id without its `b`).
    static func appendHex(_ bits: UInt64, to out: inout [UInt8]) {
        for index in 0..<16 { out.append(hexDigit(bits, index)) }
    }

    /// The 64 bits of 16 hex digits, or nil.
    static func hexBits(_ digits: UnsafeRawBufferPointer) -> UInt64? {
        guard digits.count == 16 else { return nil }
        var bits: UInt64 = 0
        for byte in digits {
            let value: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            bits = bits << 4 | UInt64(value)
        }
        return bits
    }

    /// Hex digit `index` (0: the most significant) of `bits`, lowercase.
    private static func hexDigit(_ bits: UInt64, _ index: Int) -> UInt8 {
        let nibble = UInt8(truncatingIfNeeded: bits >> UInt64(60 - 4 * index)) & 0xF
        return nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    /// 64-bit hash of a key, for compact in-memory indexes.
    /// The first 8 bytes of SHA-256(key), big-endian (the same bits as a book id made from `key`).
    public static func keyHash(_ key: String) -> UInt64 {
        var key = key
        // Hashing the UTF-8 in place: a `Data` copy per key was a third of this function (perf, issue 12).
        let digest = key.withUTF8 { SHA256.hash(data: UnsafeRawBufferPointer($0)) }
        return digest.withUnsafeBytes { UInt64(bigEndian: $0.loadUnaligned(as: UInt64.self)) }
    }

    // MARK: ISBN

    /// The shared rule (`ShelflineCore.ISBN`): a valid 978/979 ISBN-13, hyphens and spaces allowed.
    static func canonicalISBN13(_ text: String) -> String? {
        ISBN.canonical13(text).flatMap { canonical in text.utf8.count - text.utf8.filter { $0 == 45 || $0 == 32 }.count == 13 ? canonical : nil }
    }

    /// Converts a valid ISBN-10 to its ISBN-13; nil when it is not a valid ISBN-10.
    public static func isbn13(fromISBN10 text: String) -> String? {
        text.utf8.count - text.utf8.filter { $0 == 45 || $0 == 32 }.count == 10 ? ISBN.canonical13(text) : nil
    }

    // MARK: Title and author

    /// Leading articles dropped from titles (English, French, Spanish, Italian, German, Dutch, Portuguese).
    static let leadingArticles: Set<String> = [
        "a", "an", "the", "le", "la", "les", "l", "el", "los", "las", "il", "lo", "gli", "der", "die", "das",
        "ein", "eine", "het", "een", "o", "os", "as", "um", "uma", "un", "une", "una", "uno",
    ]
    /// Name suffixes that are not a surname.
    static let nameSuffixes: Set<String> = ["jr", "sr", "ii", "iii", "iv", "phd", "md", "dr"]

    /// Lowercased, diacritics folded, series suffix `(…)`, a trailing `, The` and a subtitle after `:` removed,
    /// `&` read as `and`, punctuation as spaces, leading article dropped, whitespace runs collapsed.
    public static func normaliseTitle(_ title: String, stripSubtitle: Bool = true) -> String {
        var out: [UInt8] = []
        appendNormalisedTitle(title, stripSubtitle: stripSubtitle, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `normaliseTitle(title)`: printable ASCII on bytes (`PrintableASCII`), other text by the general rule.
    static func appendNormalisedTitle(_ title: String, stripSubtitle: Bool, to out: inout [UInt8]) {
        if PrintableASCII.holds(title) {
            PrintableASCII.appendTitle(title, stripSubtitle: stripSubtitle, to: &out)
        } else {
            out.append(contentsOf: generalNormaliseTitle(title, stripSubtitle: stripSubtitle).utf8)
        }
    }

    /// `normaliseTitle` for any text: the definition `PrintableASCII.appendTitle` follows.
    static func generalNormaliseTitle(_ title: String, stripSubtitle: Bool) -> String {
        var text = fold(title)
        // Series suffixes and edition notes: every trailing `(…)` or `[…]` group.
        while let last = text.last, last == ")" || last == "]" {
            let open: Character = last == ")" ? "(" : "["
            guard let start = text.lastIndex(of: open), start != text.startIndex else { break }
            text = String(text[..<start]).trimmingCharacters(in: .whitespaces)
        }
        // Library catalogues move the article to the end: `Left Hand of Darkness, The`.
        // The byte tests first: most titles hold no `,`, `:` or `&`, and searching by Character
        // (grapheme breaking) for nothing was a tenth of dedupe's key time (perf, issue 12).
        if text.utf8.contains(UInt8(ascii: ",")), let comma = text.lastIndex(of: ","), text.distance(from: comma, to: text.endIndex) <= 6,
            leadingArticles.contains(text[text.index(after: comma)...].trimmingCharacters(in: .whitespaces))
        {
            text = String(text[..<comma])
        }
        if stripSubtitle, text.utf8.contains(UInt8(ascii: ":")), let colon = text.firstIndex(of: ":"), colon != text.startIndex {
            text = String(text[..<colon])
        }
        if text.utf8.contains(UInt8(ascii: "&")), text.contains("&") { text = text.replacingOccurrences(of: "&", with: " and ") }
        var words = words(of: text)
        if words.count > 1, leadingArticles.contains(words[0]) { words.removeFirst() }
        return words.joined(separator: " ")
    }

    /// The author's surname's last word: `Le Guin, Ursula K.` and `Ursula K. Le Guin` both give
    /// `guin`; suffixes (`Jr.`) are skipped. Exports spell given names and initials differently.
    public static func normaliseAuthor(_ author: String) -> String {
        var out: [UInt8] = []
        appendNormalisedAuthor(author, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `normaliseAuthor(author)`: printable ASCII on bytes (`PrintableASCII`), other text by the general rule.
    static func appendNormalisedAuthor(_ author: String, to out: inout [UInt8]) {
        if PrintableASCII.holds(author) {
            PrintableASCII.appendAuthor(author, to: &out)
        } else {
            out.append(contentsOf: generalNormaliseAuthor(author).utf8)
        }
    }

    /// `normaliseAuthor` for any text: the definition `PrintableASCII.appendAuthor` follows.
    static func generalNormaliseAuthor(_ author: String) -> String {
        let folded = fold(author)
        let surnamePart: Substring
        if let comma = folded.firstIndex(of: ",") {
            let before = folded[..<comma]
            let beforeWords = words(of: String(before))
            // `King, Jr., Martin Luther` keeps `King`; `Tolkien, J.R.R.` keeps `Tolkien`.
            surnamePart = beforeWords.isEmpty ? folded[...] : before
        } else {
            surnamePart = folded[...]
        }
        let candidates = words(of: String(surnamePart)).filter { !nameSuffixes.contains($0) }
        return candidates.last ?? ""
    }

    static func fold(_ text: String) -> String {
        // Most titles and names are ASCII: lowercase them without Foundation's Unicode folding.
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        return text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil).lowercased()
    }

    /// Words of letters and digits; apostrophes inside words are dropped (`don't` → `dont`),
    /// every other non-alphanumeric character separates words. Works on Unicode scalars (text is
    /// already folded), which is much cheaper than grapheme clusters.
    static func words(of text: String) -> [String] {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return asciiWords(of: text) }
        var result: [String] = []
        var current = String.UnicodeScalarView()
        var currentCount = 0
        var previousIsLetter = false
        for scalar in text.unicodeScalars {
            let isAlphanumeric: Bool
            if scalar.isASCII {
                let value = scalar.value
                isAlphanumeric = (value >= 0x61 && value <= 0x7A) || (value >= 0x30 && value <= 0x39) || (value >= 0x41 && value <= 0x5A)
            } else {
                isAlphanumeric = scalar.properties.isAlphabetic || scalar.properties.numericType != nil
                    || scalar.properties.generalCategory == .nonspacingMark && currentCount > 0
            }
            if isAlphanumeric {
                current.append(scalar)
                currentCount += 1
                previousIsLetter = true
                continue
            }
            if (scalar == "'" || scalar == "\u{2019}") && previousIsLetter && currentCount > 1 {
                // `don't` joins; a one-letter elision (`l'`, `d'`) separates.
                previousIsLetter = false
                continue
            }
            if currentCount > 0 {
                result.append(String(current))
                current = String.UnicodeScalarView()
                currentCount = 0
            }
            previousIsLetter = false
        }
        if currentCount > 0 { result.append(String(current)) }
        return result
    }
}

extension BookKeys {
    /// `words(of:)` for ASCII text, byte by byte: the same rule (letters and digits; an apostrophe
    /// inside a word of two or more letters is dropped) without building Unicode scalar views, which
    /// was 5 % of dedupe (perf, issue 12).
    static func asciiWords(of text: String) -> [String] {
        var words = ASCIIWords()
        for byte in text.utf8 { words.add(byte) }
        words.end()
        return words.ranges.map { String(decoding: words.bytes[$0], as: UTF8.self) }
    }
}

/// The words of ASCII text by the rule of `BookKeys.words(of:)`, collected in one byte buffer.
struct ASCIIWords {
    /// The words' bytes, back to back; `ranges` delimit them.
    var bytes: [UInt8] = []
    var ranges: [Range<Int>] = []
    private var start = 0
    private var previousIsLetter = false

    init() { bytes.reserveCapacity(64) }

    mutating func add(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            bytes.append(byte)
            previousIsLetter = true
        case UInt8(ascii: "'") where previousIsLetter && bytes.count - start > 1:
            // `don't` joins; a one-letter elision (`l'`, `d'`) separates.
            previousIsLetter = false
        default:
            end()
        }
    }

    /// Ends the current word, if any.
    mutating func end() {
        if bytes.count > start {
            ranges.append(start..<bytes.count)
            start = bytes.count
        }
        previousIsLetter = false
    }

    /// Adds a whole word (after ending the current one).
    mutating func add(word: StaticString) {
        end()
        bytes.append(contentsOf: UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount))
        end()
    }
}

/// `normaliseTitle` and `normaliseAuthor` for printable ASCII text (space to `~`, so one byte is one
/// Character), on bytes: the same steps without lowercased copies, Character searches and arrays of
/// word Strings. Title-author keys were 7 % of merge's CPU and more of dedupe's (perf, issue 12,
/// 200,000-row import); most exports' titles and names are printable ASCII. Other text takes the
/// general path, which is the definition (tests compare the two).
enum PrintableASCII {
    static func holds(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    static func lowercased(_ text: String) -> [UInt8] {
        text.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 }

    static func isArticle(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.count <= 4 && BookKeys.leadingArticles.contains(String(decoding: bytes, as: UTF8.self))
    }

    /// Appends `BookKeys.normaliseTitle(title)` (`title` printable ASCII).
    static func appendTitle(_ title: String, stripSubtitle: Bool, to out: inout [UInt8]) {
        let text = lowercased(title)
        // The title is text[begin..<end]; trimming moves both ends, as `trimmingCharacters` does.
        var begin = 0, end = text.count
        while end > begin, text[end - 1] == UInt8(ascii: ")") || text[end - 1] == UInt8(ascii: "]") {
            let open = text[end - 1] == UInt8(ascii: ")") ? UInt8(ascii: "(") : UInt8(ascii: "[")
            guard let start = text[begin..<end].lastIndex(of: open), start != begin else { break }
            end = start
            while end > begin, isSpace(text[end - 1]) { end -= 1 }
            while begin < end, isSpace(text[begin]) { begin += 1 }
        }
        if let comma = text[begin..<end].lastIndex(of: UInt8(ascii: ",")), end - comma <= 6 {
            var tailStart = comma + 1, tailEnd = end
            while tailStart < tailEnd, isSpace(text[tailStart]) { tailStart += 1 }
            while tailEnd > tailStart, isSpace(text[tailEnd - 1]) { tailEnd -= 1 }
            if isArticle(text[tailStart..<tailEnd]) { end = comma }
        }
        if stripSubtitle, let colon = text[begin..<end].firstIndex(of: UInt8(ascii: ":")), colon != begin { end = colon }
        var words = ASCIIWords()
        for byte in text[begin..<end] {
            // `&` reads as ` and `.
            if byte == UInt8(ascii: "&") { words.add(word: "and") } else { words.add(byte) }
        }
        words.end()
        var ranges = words.ranges[...]
        if ranges.count > 1, isArticle(words.bytes[ranges.first!]) { ranges = ranges.dropFirst() }
        for (index, range) in ranges.enumerated() {
            if index > 0 { out.append(UInt8(ascii: " ")) }
            out.append(contentsOf: words.bytes[range])
        }
    }

    /// Appends `BookKeys.normaliseAuthor(author)` (`author` printable ASCII).
    static func appendAuthor(_ author: String, to out: inout [UInt8]) {
        let text = lowercased(author)
        func words(_ part: ArraySlice<UInt8>) -> ASCIIWords {
            var words = ASCIIWords()
            for byte in part { words.add(byte) }
            words.end()
            return words
        }
        var part = text[...]
        if let comma = text.firstIndex(of: UInt8(ascii: ",")), !words(text[..<comma]).ranges.isEmpty { part = text[..<comma] }
        let surname = words(part)
        if let last = surname.ranges.last(where: { !BookKeys.nameSuffixes.contains(String(decoding: surname.bytes[$0], as: UTF8.self)) }) {
            out.append(contentsOf: surname.bytes[last])
        }
    }
}
