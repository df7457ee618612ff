import Foundation

/// How a candidate's title relates to the user's, by meaning: normalised token sequences are
/// equivalent when the same, one plus a subtitle, or a typo-level edit that touches no
/// `DistinguishingTokens` (a number, a volume word, another kind of book).
public enum TitleRelation: Sendable, Equatable {
    /// `tier` 3 equal, 2 one is the other plus a subtitle, 1 a typo-level edit.
    case equivalent(tier: Int)
    /// Otherwise the same title, but a distinguishing token was added, removed or changed.
    case distinguishing(token: String)
    case subtitleDiffers
    case different
}

/// A title as normalised tokens: the main title and the subtitle.
package struct TitleParts: Sendable {
    package var main: [String]
    package var subtitle: [String]
    package var full: [String] { main + subtitle }

    /// `title` may carry its subtitle after a separator; `subtitle` is a catalog's separate field.
    package init(title: String, subtitle: String? = nil) {
        let stripped = TitleParts.strippingSeries(title)
        var mainText = Substring(stripped)
        var rest: Substring = ""
        let separator = Self.separatorRange(in: stripped)
        if let range = separator {
            mainText = stripped[..<range.lowerBound]
            rest = stripped[range.upperBound...]
        }
        var mainWords = separator == nil ? TitleParts.words(stripped) : TitleParts.words(String(mainText))
        // Library catalogues move the article to the end: `Left Hand of Darkness, The`.
        if mainWords.count > 1, let last = mainWords.last, Self.leadingArticles.contains(last),
            let comma = mainText.utf8.lastIndex(of: UInt8(ascii: ",")),
            TitleParts.words(String(mainText[mainText.index(after: comma)...])) == [last]
        {
            mainWords.removeLast()
        }
        main = TitleParts.droppingArticle(mainWords)
        var sub = rest.isEmpty ? [] : TitleParts.words(String(rest))
        if let subtitle, !subtitle.isEmpty { sub += TitleParts.words(subtitle) }
        self.subtitle = sub
        if main.isEmpty {  // `: Subtitle` alone, or a title that is only an article
            main = sub
            self.subtitle = []
        }
    }

    /// The title without trailing `(…)`/`[…]` groups that are series parts (`(The Expanse, #2)`)
    /// or edition notes (`(Penguin Classics)`); a group naming another book (`(SparkNotes)`,
    /// `(Volume 2)`) stays, as a subtitle would.
    package static func strippingSeries(_ title: String) -> String {
        TextNormalizer.strippingSeries(title) { group in
            !group.contains("#") && words(String(group)).contains(where: DistinguishingTokens.contains)
        }
    }

    /// The first subtitle separator: `:`, `;`, or a dash between spaces.
    package static func separatorRange(in text: String) -> Range<String.Index>? {
        switch text.utf8.withContiguousStorageIfAvailable(asciiSeparator) ?? .notASCII {
        case .none: return nil
        case .found(let offset, let length):
            let lower = text.utf8.index(text.utf8.startIndex, offsetBy: offset)
            return lower..<text.utf8.index(lower, offsetBy: length)
        case .notASCII: return searchedSeparatorRange(in: text)
        }
    }

    private enum SeparatorScan { case found(offset: Int, length: Int), none, notASCII }

    /// `searchedSeparatorRange` by bytes while the text is ASCII (Foundation's search is slow on
    /// Linux). Text not ASCII before the answer, or a byte after it that is not (a mark joining the
    /// separator into another `Character`), is left to Foundation.
    private static func asciiSeparator(in bytes: UnsafeBufferPointer<UInt8>) -> SeparatorScan {
        var colon = true, semicolon = true, dash = true
        for index in bytes.indices {
            var length = 0
            switch bytes[index] {
            case 0x80...: return .notASCII
            case UInt8(ascii: ":"):
                if colon { length = 1 }
                colon = false
            case UInt8(ascii: ";"):
                if semicolon { length = 1 }
                semicolon = false
            case UInt8(ascii: " ")
            where index + 2 < bytes.count && bytes[index + 1] == UInt8(ascii: "-") && bytes[index + 2] == UInt8(ascii: " "):
                if dash { length = 3 }
                dash = false
            default: continue
            }
            guard length > 0, index > 0 else { continue }
            if index + length < bytes.count, bytes[index + length] >= 0x80 { return .notASCII }
            return .found(offset: index, length: length)
        }
        return .none
    }

    /// For text that is not ASCII: each separator's first occurrence counts, none when it starts the text.
    package static func searchedSeparatorRange(in text: String) -> Range<String.Index>? {
        // No byte a separator starts with (`:`, `;`, a space, 0xE2 of the dashes): none.
        guard
            text.utf8.contains(where: {
                $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ";") || $0 == UInt8(ascii: "-") || $0 == 0xE2
            })
        else { return nil }
        var best: Range<String.Index>?
        for separator in [":", ";", " - ", " – ", " — "] {
            if let range = text.range(of: separator), range.lowerBound != text.startIndex,
                best == nil || range.lowerBound < best!.lowerBound
            {
                best = range
            }
        }
        return best
    }

    /// Tokens with apostrophes inside words removed first (`Man's` → `mans`); a one-letter
    /// elision separates (`l'Étranger` → `l etranger`, `d'exercices` → `d exercices`).
    package static func words(_ text: String) -> [String] {
        // Neither `'` nor U+2019's bytes: no apostrophe, without Foundation's slower search.
        let bytes = text.utf8
        guard bytes.contains(where: { $0 == 0x27 || $0 == 0x99 }),
            text.contains("'") || text.contains("\u{2019}")
        else { return TextNormalizer.tokens(text) }
        var plain = String.UnicodeScalarView()
        var run = 0
        for scalar in text.unicodeScalars {
            if scalar == "'" || scalar == "\u{2019}" {
                if run <= 1 { plain.append(" ") }
                continue
            }
            run = isAlphabetic(scalar) ? run + 1 : 0
            plain.append(scalar)
        }
        return TextNormalizer.tokens(String(plain))
    }

    /// `scalar.properties.isAlphabetic`, without the property table for ASCII (most titles with an apostrophe).
    package static func isAlphabetic(_ scalar: Unicode.Scalar) -> Bool {
        guard scalar.isASCII else { return scalar.properties.isAlphabetic }
        return (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(UInt8(scalar.value) | 0x20)
    }

    /// Leading articles of the languages exports hold (English, French, Spanish, Italian, German, Dutch, Portuguese).
    package static let leadingArticles: Set<String> = [
        "a", "an", "the", "le", "la", "les", "l", "el", "los", "las", "il", "lo", "gli", "der", "die", "das",
        "ein", "eine", "het", "een", "um", "uma", "un", "une", "una", "uno",
    ]

    package static func droppingArticle(_ tokens: [String]) -> [String] {
        guard tokens.count > 1, leadingArticles.contains(tokens[0]) else { return tokens }
        return Array(tokens.dropFirst())
    }
}

extension TitleRelation {
    package static func between(_ user: TitleParts, _ candidate: TitleParts) -> TitleRelation {
        let userFull = user.full, candidateFull = candidate.full
        if userFull.isEmpty || candidateFull.isEmpty { return .different }
        if sameText(userFull, candidateFull) { return .equivalent(tier: 3) }
        // Same main title; one side has a subtitle the other lacks, or both have different ones.
        if user.main == candidate.main || user.main == candidateFull || userFull == candidate.main {
            if user.main == candidate.main && !user.subtitle.isEmpty && !candidate.subtitle.isEmpty {
                if let token = DistinguishingTokens.firstDifference(user.subtitle, candidate.subtitle) {
                    return .distinguishing(token: token)
                }
                return typoLevel(user.subtitle, candidate.subtitle) ? .equivalent(tier: 1) : .subtitleDiffers
            }
            let extra =
                userFull.count > candidateFull.count
                ? Array(userFull.dropFirst(candidateFull.count)) : Array(candidateFull.dropFirst(userFull.count))
            if let token = extra.first(where: DistinguishingTokens.contains) { return .distinguishing(token: token) }
            return .equivalent(tier: 2)
        }
        if let token = DistinguishingTokens.firstDifference(userFull, candidateFull) {
            if DistinguishingTokens.sameApartFromDistinguishing(userFull, candidateFull)
                || DistinguishingTokens.sameApartFromDistinguishing(user.main, candidate.main)
            {
                return .distinguishing(token: token)
            }
            return .different
        }
        if typoLevel(userFull, candidateFull) { return .equivalent(tier: 1) }
        // A slip in the main title, and at most one side with a subtitle (checked above: no
        // distinguishing token differs) or the same subtitle.
        if typoLevel(user.main, candidate.main)
            && (user.subtitle.isEmpty || candidate.subtitle.isEmpty || user.subtitle == candidate.subtitle)
        {
            return .equivalent(tier: 1)
        }
        return .different
    }

    /// Equal token sequences, also when a word was split or joined (`spider man` / `spiderman`).
    package static func sameText(_ lhs: [String], _ rhs: [String]) -> Bool {
        if lhs == rhs { return true }
        guard !lhs.isEmpty, !rhs.isEmpty, lhs.count != rhs.count else { return false }
        return lhs.joined() == rhs.joined() && !lhs.contains(where: DistinguishingTokens.contains)
            && !rhs.contains(where: DistinguishingTokens.contains)
    }

    /// Same length, few tokens differing, each by a small slip in a plain word of five letters or more.
    package static func typoLevel(_ lhs: [String], _ rhs: [String]) -> Bool {
        guard lhs.count == rhs.count, !lhs.isEmpty else { return false }
        let allowed = lhs.count >= 6 ? 2 : 1
        var changed = 0
        for (left, right) in zip(lhs, rhs) where left != right {
            changed += 1
            guard changed <= allowed else { return false }
            guard !DistinguishingTokens.contains(left), !DistinguishingTokens.contains(right) else { return false }
            let a = Array(left.unicodeScalars), b = Array(right.unicodeScalars)
            let shorter = min(a.count, b.count)
            guard shorter >= 5, a.allSatisfy(\.properties.isAlphabetic), b.allSatisfy(\.properties.isAlphabetic) else {
                return false
            }
            guard EditDistance.levenshtein(a, b) <= (shorter >= 8 ? 2 : 1) else { return false }
        }
        return changed > 0
    }
}

/// Tokens whose presence makes another book: numbers, volume words and words naming another kind
/// of book (companion, summary, box set, …).
public enum DistinguishingTokens {
    package static let volumeWords: Set<String> = [
        "volume", "volumes", "vol", "vols", "part", "parts", "book", "books", "band", "bande", "teil", "tome", "tomes",
        "tomo", "tomos", "libro", "libros", "volumen", "volumenes", "buch", "livre", "partie", "parte", "episode",
        "episodio", "chapter", "season", "staffel", "saison", "temporada", "nr", "num", "numero",
    ]
    package static let numberWords: Set<String> = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen",
        "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty", "thirty", "forty", "fifty",
        "hundred", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
        "eleventh", "twelfth", "twentieth", "last", "final", "1st", "2nd", "3rd",
        // German (articles `ein`/`eine` excluded)
        "eins", "zwei", "drei", "vier", "funf", "fuenf", "sechs", "sieben", "acht", "neun", "zehn", "erste", "erster",
        "ersten", "zweite", "zweiter", "zweiten", "dritte", "dritter", "dritten", "vierte", "vierter", "funfte", "letzte",
        // French (articles `un`/`une` excluded)
        "deux", "trois", "quatre", "cinq", "sept", "huit", "neuf", "dix", "premier", "premiere", "deuxieme", "troisieme",
        "quatrieme", "cinquieme", "seconde", "dernier", "derniere",
        // Spanish (articles `un`/`una`/`uno` excluded)
        "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez", "primero", "primera", "segundo",
        "segunda", "tercero", "tercera", "cuarto", "cuarta", "quinto", "quinta", "ultimo", "ultima",
    ]
    package static let kindWords: Set<String> = [
        "companion", "companions", "summary", "summaries", "study", "guidebook", "workbook",
        "workbooks", "analysis", "notes", "cliffsnotes", "sparknotes", "readers", "boxed", "box", "boxset", "collection",
        "collected", "complete", "omnibus", "trilogy", "tetralogy", "quartet", "duology", "graphic", "manga", "comic",
        "screenplay", "script", "screenplays", "sequel", "prequel", "coloring", "colouring", "quiz", "trivia",
        "unofficial", "anthology", "summarized",
        "begleitbuch", "begleiter", "zusammenfassung", "lernhilfe", "studienfuhrer", "arbeitsbuch", "arbeitsheft",
        "analyse", "interpretation", "interpretationen", "notizen", "lekturehilfe", "schuber", "sammelband", "sammlung",
        "gesamtausgabe", "trilogie", "comicroman", "drehbuch", "leitfaden",
        "compagnon", "resume", "etude", "etudes", "cahier", "fiche", "coffret", "integrale", "recueil", "graphique",
        "bd", "scenario", "lecture",
        "companero", "resumen", "guia", "estudio", "cuaderno", "analisis", "notas", "estuche", "coleccion",
        "trilogia", "grafica", "guion", "antologia", "obras", "completas",
    ]
    /// Little words that travel with distinguishing tokens (`a companion to`, `book 2 of the`).
    package static let filler: Set<String> = [
        "a", "an", "the", "to", "of", "and", "for", "on", "in", "s", "with", "de", "du", "des", "la", "le",
        "les", "el", "los", "las", "del", "zu", "zum", "zur", "der", "die", "das", "und", "y", "et", "set", "novel",
        "novela", "roman", "edition", "ausgabe",
    ]

    /// The same title once distinguishing tokens and the `filler` around them are set aside.
    package static func sameApartFromDistinguishing(_ lhs: [String], _ rhs: [String]) -> Bool {
        func little(_ token: String) -> Bool { filler.contains(token) || token.count <= 2 }
        let left = lhs.filter { !contains($0) && !little($0) }
        let right = rhs.filter { !contains($0) && !little($0) }
        guard !left.isEmpty else { return false }
        return TitleRelation.sameText(left, right) || TitleRelation.typoLevel(left, right)
    }

    public static func contains(_ token: String) -> Bool {
        if token.utf8.contains(where: { $0 >= 48 && $0 <= 57 }) { return true }
        return volumeWords.contains(token) || numberWords.contains(token) || kindWords.contains(token) || isRomanNumeral(token)
    }

    /// `i`…`lxxxix` written with i, v, x, l in the standard form.
    package static func isRomanNumeral(_ token: String) -> Bool {
        // A lone `l` is the French elided article far more often than fifty.
        token != "l" && romanNumerals.contains(token)
    }

    private static let romanNumerals = Set((1..<90).map(romanNumeral))

    private static func romanNumeral(_ number: Int) -> String {
        let table: [(Int, String)] = [(50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")]
        var rest = number, text = ""
        for (value, symbol) in table {
            while rest >= value { text += symbol; rest -= value }
        }
        return text
    }

    /// The first in one sequence but not the other (as multisets).
    package static func firstDifference(_ lhs: [String], _ rhs: [String]) -> String? {
        var counts: [String: Int] = [:]
        for token in lhs where contains(token) { counts[token, default: 0] += 1 }
        for token in rhs where contains(token) { counts[token, default: 0] -= 1 }
        if let token = lhs.first(where: { (counts[$0] ?? 0) > 0 }) { return token }
        return rhs.first(where: { (counts[$0] ?? 0) < 0 })
    }
}
