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
        let normalisedTitle = normaliseTitle(title, stripSubtitle: stripSubtitle)
        guard !normalisedTitle.isEmpty else { return nil }
        return "ta:" + normalisedTitle + "|" + normaliseAuthor(author ?? "")
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
        "b" + String(bits, radix: 16).leftPadded(to: 16)
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
        var result: [String] = []
        var current: [UInt8] = []
        var previousIsLetter = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                current.append(byte)
                previousIsLetter = true
                continue
            case UInt8(ascii: "'") where previousIsLetter && current.count > 1:
                previousIsLetter = false
                continue
            default:
                break
            }
            if !current.isEmpty {
                result.append(String(decoding: current, as: UTF8.self))
                current.removeAll(keepingCapacity: true)
            }
            previousIsLetter = false
        }
        if !current.isEmpty { result.append(String(decoding: current, as: UTF8.self)) }
        return result
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
