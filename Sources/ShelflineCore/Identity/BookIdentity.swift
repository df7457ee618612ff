/// What identifies a book that no ISBN decides: `TitleRelation`'s rule in a form an index can hold.
/// Two titles are one book when main titles and surnames are equal and their `TitleDescriptor`s
/// are compatible, each part both present and equal or one absent:
/// - subtitles, unless the present one holds a distinguishing token (`Dune` / `Dune: Book Two`);
/// - series numbers, unless the present one is a range (`#1-3`: an omnibus) and the subtitles
///   do not agree;
/// - the first given name's initial (`Tabitha King` is not `Stephen King`).
/// Compatibility implies `TitleRelation.between` is `.equivalent` (tested); the converse misses
/// only typo-level slips, which an index cannot express (it then keeps two books, never folds).
public struct TitleIdentity: Sendable, Equatable {
    /// The main title's tokens joined by spaces; never empty.
    public var main: String
    /// The surname's last word.
    public var surname: String
    /// "" for none, as for the rest.
    public var subtitle: String
    /// Normalised: `01`, `1.0` → `1`.
    public var seriesNumber: String
    /// The first given name's first letter.
    public var initial: String

    /// Nil when the title has no words; a group naming another book (`(Volume 2)`) becomes
    /// subtitle. `splitSubtitle` false keeps the whole title as the main title.
    public init?(title: String, seriesPosition: String?, author: String?, splitSubtitle: Bool = true) {
        let parts = TitleParts(title: title)
        let main = splitSubtitle ? parts.main : parts.full
        guard !main.isEmpty else { return nil }
        self.main = Self.joined(main, separator: " ")
        subtitle = splitSubtitle ? Self.joined(parts.subtitle, separator: " ") : ""
        seriesNumber = Self.normalisedNumber(seriesPosition)
        (surname, initial) = Self.authorParts(author)
    }

    /// Nil for another kind of key. An older library's `ta:<title>|<surname>` keys are read as a
    /// main title with nothing else known, so they join a row only when no other book can.
    public init?(key: String) {
        if key.hasPrefix("tk:") {
            let fields = key.dropFirst(3).split(separator: "|", omittingEmptySubsequences: false)
            guard fields.count == 5, !fields[0].isEmpty else { return nil }
            main = String(fields[0]); surname = String(fields[1]); subtitle = String(fields[2])
            seriesNumber = String(fields[3]); initial = String(fields[4])
        } else if key.hasPrefix("ta:") {
            let fields = key.dropFirst(3).split(separator: "|", omittingEmptySubsequences: false)
            guard fields.count == 2, !fields[0].isEmpty else { return nil }
            main = String(fields[0]); surname = String(fields[1]); subtitle = ""; seriesNumber = ""; initial = ""
        } else {
            return nil
        }
    }

    /// `tk:<main>|<surname>|<subtitle>|<series number>|<initial>`: what a library book stores.
    public var key: String { Self.joined([main, surname, subtitle, seriesNumber, initial], separator: "|", prefix: "tk:") }
    /// `tk:<main>|<surname>`: the books that may be this one are found under it.
    public var mainKey: String { Self.joined([main, surname], separator: "|", prefix: "tk:") }

    /// One allocation, one copy per part: interpolation and `joined` grow the string piece by piece.
    static func joined(_ parts: [String], separator: Unicode.Scalar, prefix: String = "") -> String {
        guard parts.count > 1 || !prefix.isEmpty else { return parts.first ?? "" }
        let count = parts.reduce(prefix.utf8.count + max(parts.count - 1, 0)) { $0 + $1.utf8.count }
        return String(unsafeUninitializedCapacity: count) { buffer in
            var offset = copy(prefix, into: buffer, at: 0)
            for (index, part) in parts.enumerated() {
                if index > 0 {
                    buffer[offset] = UInt8(separator.value)
                    offset += 1
                }
                offset = copy(part, into: buffer, at: offset)
            }
            return offset
        }
    }

    /// Returns the offset after it.
    private static func copy(_ text: String, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) -> Int {
        let copied = text.utf8.withContiguousStorageIfAvailable { bytes in
            if let source = bytes.baseAddress { (buffer.baseAddress! + offset).update(from: source, count: bytes.count) }
            return offset + bytes.count
        }
        if let copied { return copied }
        var end = offset
        for byte in text.utf8 {
            buffer[end] = byte
            end += 1
        }
        return end
    }

    public var descriptor: TitleDescriptor {
        TitleDescriptor(subtitle: subtitle, seriesNumber: seriesNumber, initial: initial)
    }

    public func isSameBook(as other: TitleIdentity) -> Bool {
        main == other.main && surname == other.surname && descriptor.isCompatible(with: other.descriptor)
    }

    /// `01` → `1`, `1.0` → `1`, `2.5` stays; a range or list (an omnibus) joins its numbers with `-`.
    static func normalisedNumber(_ text: String?) -> String {
        guard let text else { return "" }
        let words = TextNormalizer.tokens(text)
        let tokens = words.map { Int($0).map(String.init) ?? $0 }
        guard !tokens.isEmpty else { return "" }
        if isRange(text, tokens: words) { return tokens.joined(separator: "-") }
        var joined = tokens.joined(separator: ".")
        if joined.hasSuffix(".0") { joined.removeLast(2) }
        return joined
    }

    /// A series position naming several books: `1-3`, `1–3`, `1, 2`, `1 & 2`.
    static func isRange(_ text: String, tokens: [String]) -> Bool {
        text.contains(where: { "-–—,&+/".contains($0) }) || tokens.contains("and")
    }

    /// `Le Guin, Ursula K.` and `Ursula K. Le Guin` give (`guin`, `u`); suffixes (`Jr.`) are skipped.
    static func authorParts(_ author: String?) -> (surname: String, initial: String) {
        guard let author else { return ("", "") }
        func names(_ text: some StringProtocol) -> [String] {
            TextNormalizer.tokens(String(text)).filter { !isNameSuffix($0) }
        }
        var surnameWords: [String], givenWords: [String]
        let comma = TextNormalizer.firstIndex(of: ",", in: author)
        let beforeComma = comma.map { names(author[..<$0]) } ?? []
        if let comma, !beforeComma.isEmpty {
            surnameWords = beforeComma
            givenWords = names(author[author.index(after: comma)...])
        } else {
            let words = names(author)
            surnameWords = Array(words.suffix(1))
            givenWords = words.count > 1 ? [words[0]] : []
        }
        let initial = givenWords.first?.first.map(String.init) ?? ""
        return (surnameWords.last ?? "", initial)
    }

    static let nameSuffixes: Set<String> = ["jr", "sr", "ii", "iii", "iv", "phd", "md", "dr"]

    /// A longer word (most names) needs no hashing.
    static func isNameSuffix(_ word: String) -> Bool {
        word.utf8.count <= 3 && nameSuffixes.contains(word)
    }
}

/// A `TitleIdentity`'s parts beside its main key in 32 bits, for the key index: a 16-bit subtitle
/// tag, a distinguishing bit, an 8-bit series tag, 5 bits of initial, a range bit, and `closed`
/// (seen under titles the rule calls different books, so no row joins it by title alone). Tags are
/// hashes: two subtitles of one main title and author collide about 1 in 65,000 such rare pairs.
public struct TitleDescriptor: Sendable, Hashable {
    public var rawValue: UInt32

    public init(rawValue: UInt32) { self.rawValue = rawValue }

    init(subtitle: String, seriesNumber: String, initial: String) {
        var raw: UInt32 = 0
        if !subtitle.isEmpty {
            raw |= Self.tag(subtitle, bits: 16)
            if subtitle.split(separator: " ").contains(where: { DistinguishingTokens.contains(String($0)) }) {
                raw |= Self.distinguishingBit
            }
        }
        if !seriesNumber.isEmpty {
            raw |= Self.tag(seriesNumber, bits: 8) << 17
            if seriesNumber.contains("-") { raw |= Self.rangeBit }
        }
        if let scalar = initial.unicodeScalars.first { raw |= (scalar.value % 31 + 1) << 25 }
        rawValue = raw
    }

    private static let subtitleMask: UInt32 = 0xFFFF
    private static let distinguishingBit: UInt32 = 1 << 16
    private static let seriesMask: UInt32 = 0xFF << 17
    private static let initialMask: UInt32 = 0x1F << 25
    private static let rangeBit: UInt32 = 1 << 30
    private static let closedBit: UInt32 = 1 << 31

    /// What tells a title from another of its main title besides a series marker.
    public var subtitlePart: UInt32 { rawValue & (Self.subtitleMask | Self.distinguishingBit) }

    /// A subtitle or a series number.
    public var namesPart: Bool { rawValue & (Self.subtitleMask | Self.seriesMask) != 0 }

    public var isClosed: Bool { rawValue & Self.closedBit != 0 }

    public var closed: TitleDescriptor { TitleDescriptor(rawValue: rawValue | Self.closedBit) }

    /// The rule on everything but the main title and surname (see `TitleIdentity`).
    public func isCompatible(with other: TitleDescriptor) -> Bool {
        if isClosed || other.isClosed { return false }
        let mine = rawValue & Self.subtitleMask, theirs = other.rawValue & Self.subtitleMask
        let sameSubtitle = mine != 0 && mine == theirs
        if mine != 0 && theirs != 0 {
            guard sameSubtitle else { return false }
        } else if rawValue & Self.distinguishingBit != 0 || other.rawValue & Self.distinguishingBit != 0 {
            return false  // one side's subtitle names another book
        }
        let mySeries = rawValue & Self.seriesMask, theirSeries = other.rawValue & Self.seriesMask
        if (mine == 0) != (theirs == 0), (mySeries == 0) != (theirSeries == 0), (mine == 0) != (mySeries == 0) {
            return false  // each names what the other lacks (a subtitle; a number): two halves are no sure book
        }
        if !sameSubtitle, (mySeries == 0) != (theirSeries == 0), (rawValue | other.rawValue) & Self.rangeBit != 0 {
            return false  // one side is an omnibus (`#1-3`), the other names neither a number nor its subtitle
        }
        return Self.agree(mySeries, theirSeries) && Self.agree(rawValue & Self.initialMask, other.rawValue & Self.initialMask)
    }

    /// What no filling in can change once they differ.
    public func initialAgrees(with other: TitleDescriptor) -> Bool {
        Self.agree(rawValue & Self.initialMask, other.rawValue & Self.initialMask)
    }

    /// Every part both say is the same: what rows sharing an ISBN must satisfy to be one title.
    public func agrees(with other: TitleDescriptor) -> Bool {
        !isClosed && !other.isClosed && Self.agree(rawValue & Self.subtitleMask, other.rawValue & Self.subtitleMask)
            && Self.agree(rawValue & Self.seriesMask, other.rawValue & Self.seriesMask)
            && Self.agree(rawValue & Self.initialMask, other.rawValue & Self.initialMask)
    }

    /// Both filled in when they `agree`, else this one closed: an ISBN's title from its rows.
    public func together(with other: TitleDescriptor) -> TitleDescriptor {
        agrees(with: other) ? filled(from: other) : closed
    }

    /// Each part this one lacks taken from `other`, which must be compatible.
    public func filled(from other: TitleDescriptor) -> TitleDescriptor {
        var raw = rawValue
        if raw & Self.subtitleMask == 0 { raw |= other.rawValue & (Self.subtitleMask | Self.distinguishingBit) }
        if raw & Self.seriesMask == 0 { raw |= other.rawValue & (Self.seriesMask | Self.rangeBit) }
        if raw & Self.initialMask == 0 { raw |= other.rawValue & Self.initialMask }
        return TitleDescriptor(rawValue: raw)
    }

    private static func agree(_ lhs: UInt32, _ rhs: UInt32) -> Bool { lhs == 0 || rhs == 0 || lhs == rhs }

    /// FNV-1a folded to `bits` bits, never 0.
    private static func tag(_ text: String, bits: UInt32) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in text.utf8 { hash = (hash ^ UInt32(byte)) &* 0x0100_0193 }
        let folded = (hash ^ (hash >> bits)) & ((1 << bits) - 1)
        return folded == 0 ? 1 : folded
    }
}
