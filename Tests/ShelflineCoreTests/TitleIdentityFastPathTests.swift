import Foundation
import Testing

@testable import ShelflineCore

/// The byte-level shortcuts in building a title identity give what the general code gives, over
/// many spellings (ASCII and not, separators anywhere, series groups, name suffixes): the keys
/// are stored in libraries, so the two must never drift.
@Suite struct TitleIdentityFastPathTests {
    private static let titles: [String] = {
        let mains = [
            "Dune", "The Left Hand of Darkness", "Cien años de soledad", "L'Étranger", "Don't Look Back", "Spider-Man",
            "A - B", ":Colon first", ";Semi first", " - Dash first", "Ender’s Game", "Das Boot", "Thinking, Fast and Slow",
            "Left Hand of Darkness, The", "X", "",
        ]
        let separators = [
            "", ": ", "; ", " - ", " – ", " — ", ":", " -", "- ", " : ", "::", ";:", " - - ", " -- ", ":\u{301} ",
            " -\u{301} ", "\u{37E} ", " é: ",
        ]
        let subtitles = ["", "A Novel", "Book Two", "Volume 2", "Guía de estudio", "L'histoire d'O", "x - y; z"]
        let groups = ["", " (Dune Chronicles, #1)", " (Kindle Edition)", " [Boxed Set]", " (Volume 2)", " (Série, #1-3)"]
        return mains.flatMap { main in
            separators.flatMap { separator in
                subtitles.flatMap { subtitle in groups.map { main + separator + subtitle + $0 } }
            }
        }
    }()

    @Test func separatorByBytesIsFoundationsSearch() {
        func offsets(_ range: Range<String.Index>?, in text: String) -> [Int]? {
            range.map {
                [
                    text.utf8.distance(from: text.startIndex, to: $0.lowerBound),
                    text.utf8.distance(from: $0.lowerBound, to: $0.upperBound),
                ]
            }
        }
        var asciiTitles = 0
        for title in Self.titles {
            let searched = offsets(TitleParts.searchedSeparatorRange(in: title), in: title)
            #expect(offsets(TitleParts.separatorRange(in: title), in: title) == searched, "\(title)")
            if title.utf8.allSatisfy({ $0 < 0x80 }) { asciiTitles += 1 }
        }
        #expect(asciiTitles > 1000)
    }

    @Test func asciiLettersAreTheAlphabeticProperty() {
        for value in UInt32(0)..<0x250 {
            let scalar = Unicode.Scalar(value)!
            #expect(TitleParts.isAlphabetic(scalar) == scalar.properties.isAlphabetic, "\(value)")
        }
    }

    @Test func keysAreTheFieldsJoined() throws {
        for (index, title) in Self.titles.enumerated() {
            let series = ["", "1", "01", "1-3", "2.5"][index % 5]
            guard let identity = TitleIdentity(title: title, seriesPosition: series, author: "Ann Writer") else { continue }
            let parts = TitleParts(title: title)
            let main = parts.main.isEmpty ? parts.subtitle : parts.main
            #expect(identity.main == main.joined(separator: " "), "\(title)")
            #expect(identity.subtitle == (parts.main.isEmpty ? "" : parts.subtitle.joined(separator: " ")), "\(title)")
            let s = identity
            #expect(s.key == "tk:\(s.main)|\(s.surname)|\(s.subtitle)|\(s.seriesNumber)|\(s.initial)", "\(title)")
            #expect(s.mainKey == "tk:\(s.main)|\(s.surname)", "\(title)")
            #expect(TitleIdentity(key: s.key) == s)
        }
    }

    @Test func authorPartsSkipTheSuffixesTheSetNames() {
        /// The rule written plainly: every token looked up in `nameSuffixes`.
        func reference(_ author: String) -> (String, String) {
            func names(_ text: some StringProtocol) -> [String] {
                TextNormalizer.tokens(String(text)).filter { !TitleIdentity.nameSuffixes.contains($0) }
            }
            var surnameWords: [String], givenWords: [String]
            if let comma = author.firstIndex(of: ","), !names(author[..<comma]).isEmpty {
                surnameWords = names(author[..<comma])
                givenWords = names(author[author.index(after: comma)...])
            } else {
                let words = names(author)
                surnameWords = Array(words.suffix(1))
                givenWords = words.count > 1 ? [words[0]] : []
            }
            return (surnameWords.last ?? "", givenWords.first?.first.map(String.init) ?? "")
        }
        let givens = ["", "Ursula K.", "J.R.R.", "Stephen", "Émile", "Martin Luther", "Jr."]
        let surnames = ["Le Guin", "King", "García Márquez", "Ng", "Dr", "Phd", "Jrr"]
        let suffixes = ["", " Jr.", ", Jr.", " PhD", " III", " md", ", Sr.", " IV", " Iva", " ii"]
        var checked = 0
        for given in givens {
            for surname in surnames {
                for suffix in suffixes {
                    for author in [
                        "\(given) \(surname)\(suffix)", "\(surname)\(suffix), \(given)", "\(surname), \(given)\(suffix)",
                    ] {
                        let parts = TitleIdentity.authorParts(author)
                        let expected = reference(author)
                        #expect(parts.surname == expected.0 && parts.initial == expected.1, "\(author)")
                        checked += 1
                    }
                }
            }
        }
        #expect(checked > 1000)
    }
}
