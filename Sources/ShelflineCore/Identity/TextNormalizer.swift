import Foundation

/// Titles and author names as comparable tokens, as SQLite's `unicode61 remove_diacritics 2`
/// tokenizer makes them, so they can be looked up in the catalog's FTS5 index.
public enum TextNormalizer {
    /// Words too common to make a title query selective (still used for scoring).
    package static let stopwords: Set<String> = [
        "a", "an", "the", "and", "of", "in", "on", "to", "for", "s", "la", "le", "les", "el", "der", "die", "das", "de",
    ]

    /// Fetched once: `CharacterSet.alphanumerics` builds the set on every access (3 % of lookup's CPU).
    private static let alphanumerics = CharacterSet.alphanumerics

    /// Lower-case, diacritic-free tokens; `&` reads as `and`.
    public static func tokens(_ text: String) -> [String] {
        // ASCII (most titles and names) by bytes: Foundation's folding is slow on Linux.
        var text = text
        text.makeContiguousUTF8()
        if let tokens = text.utf8.withContiguousStorageIfAvailable(asciiTokens) ?? nil { return tokens }
        let folded = fold(text)
        var tokens: [String] = []
        var current = ""
        for scalar in folded.unicodeScalars {
            if alphanumerics.contains(scalar) {
                current.unicodeScalars.append(scalar)
            } else {
                if !current.isEmpty { tokens.append(current); current = "" }
                if scalar == "&" { tokens.append("and") }
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }

    /// One pass, each token a slice of one folded copy; nil at the first byte that is not ASCII.
    private static func asciiTokens(_ bytes: UnsafeBufferPointer<UInt8>) -> [String]? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, bytes.count)) { folded -> [String]? in
            var tokens: [String] = []
            tokens.reserveCapacity(bytes.count / 4 + 1)
            var end = 0
            var start = 0
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    folded[end] = byte
                    end += 1
                case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    folded[end] = byte + 32
                    end += 1
                case 0x80...:
                    return nil
                default:
                    if end > start {
                        tokens.append(String(decoding: UnsafeBufferPointer(rebasing: folded[start..<end]), as: UTF8.self))
                        start = end
                    }
                    if byte == UInt8(ascii: "&") { tokens.append("and") }
                }
            }
            if end > start { tokens.append(String(decoding: UnsafeBufferPointer(rebasing: folded[start..<end]), as: UTF8.self)) }
            return tokens
        }
    }

    /// Case folded in every script; diacritics and width on Latin letters only, as `unicode61` does:
    /// elsewhere a mark often makes another letter (Cyrillic `й` is not `и`).
    package static func fold(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var previousLatin = false
        for scalar in text.precomposedStringWithCanonicalMapping.unicodeScalars {
            let value = scalar.value
            if value < 0x80 {
                out.append(contentsOf: String(scalar).lowercased().unicodeScalars)
                previousLatin = true
            } else if (0xC0...0x24F).contains(value) || (0x1E00...0x1EFF).contains(value) || (0xFF10...0xFF5A).contains(value) {
                out.append(
                    contentsOf: String(scalar).folding(
                        options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive],
                        locale: nil
                    ).unicodeScalars)
                previousLatin = true
            } else if (0x300...0x36F).contains(value) {
                if !previousLatin { out.append(scalar) }  // a mark left on a Latin letter is folded away
            } else {
                out.append(contentsOf: String(scalar).lowercased().unicodeScalars)
                previousLatin = false
            }
        }
        return String(out)
    }

    /// Nothing to trim and no trailing `(…)`/`[…]` group (most titles): callers skip Foundation's
    /// trimming, a tenth of the catalog index build.
    package static func hasNoTrailingGroupOrSpace(_ title: String) -> Bool {
        guard let first = title.utf8.first, let last = title.utf8.last else { return false }
        return first > 0x20 && first < 0x80 && last > 0x20 && last < 0x80 && last != UInt8(ascii: ")")
            && last != UInt8(ascii: "]")
    }

    /// Without leading and trailing `.whitespaces`; Foundation's trimming (4 % of lookup's CPU) only
    /// when an end is a space, a tab or not ASCII.
    package static func trimmingWhitespace(_ text: String) -> String {
        guard let first = text.utf8.first, let last = text.utf8.last,
            first <= 0x20 || first >= 0x80 || last <= 0x20 || last >= 0x80
        else { return text }
        return text.trimmingCharacters(in: .whitespaces)
    }

    /// A title without a trailing `(Series, #n)` or `[…]` part, the form catalogs use. The last group
    /// `keeping` holds stays, as a subtitle (`Title: Volume 2`), and ends the stripping.
    public static func strippingSeries(_ title: String, keeping: (Substring) -> Bool = { _ in false }) -> String {
        if hasNoTrailingGroupOrSpace(title) { return title }
        var text = title.trimmingCharacters(in: .whitespaces)
        while let last = text.last, last == ")" || last == "]" {
            let open: Character = last == ")" ? "(" : "["
            guard let start = text.lastIndex(of: open), start != text.startIndex else { break }
            let group = text[start...]
            let rest = String(text[..<start]).trimmingCharacters(in: .whitespaces)
            if keeping(group) { return rest + ": " + group.dropFirst().dropLast() }
            text = rest
        }
        return text
    }

    /// Tokens of a person's name, order-independent of `Last, First`, with runs of initials joined
    /// (`J. R. R. Tolkien`, `J.R.R. Tolkien` and `Tolkien, J.R.R.` all give `jrr tolkien`).
    public static func nameTokens(_ name: String) -> [String] {
        joiningInitials(nameWords(name))
    }

    /// `tokens(name)` in `First Last` order (`Last, First` turned around), initials not yet joined.
    package static func nameWords(_ name: String) -> [String] {
        guard let comma = firstIndex(of: ",", in: name) else { return tokens(name) }
        let first = String(name[name.index(after: comma)...])
        guard firstIndex(of: ",", in: first) == nil else { return tokens(name) }
        return tokens(first) + tokens(String(name[..<comma]))
    }

    /// Runs of one-letter tokens joined into one (`j r r tolkien` → `jrr tolkien`).
    package static func joiningInitials(_ words: [String]) -> [String] {
        var result: [String] = []
        var initials = ""
        for token in words {
            if token.count == 1 {
                initials += token
            } else {
                if !initials.isEmpty { result.append(initials); initials = "" }
                result.append(token)
            }
        }
        if !initials.isEmpty { result.append(initials) }
        return result
    }

    /// By bytes when `text` is ASCII: the `Character` search was 4 % of lookup's CPU.
    package static func firstIndex(of character: Unicode.Scalar, in text: String) -> String.Index? {
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else { return text.firstIndex(of: Character(character)) }
        return text.utf8.firstIndex(of: UInt8(character.value))
    }

    /// The exact-title key the catalog indexes: tokens without a leading article, series stripped.
    public static func titleKey(_ title: String) -> String {
        var words = tokens(strippingSeries(title))
        if words.count > 1, let first = words.first, ["the", "a", "an"].contains(first) { words.removeFirst() }
        return words.joined(separator: " ")
    }

    /// Normalised, so spelling variants share a cache entry.
    public static func queryKey(title: String, author: String?) -> String {
        tokens(strippingSeries(title)).joined(separator: " ") + "|" + (author.map { nameTokens($0).joined(separator: " ") } ?? "")
    }
}
