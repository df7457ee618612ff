import Foundation
import ShelflineCore
import Testing

@Suite struct TextNormalizerTests {
    @Test(arguments: [
        ("The Left Hand of Darkness", ["the", "left", "hand", "of", "darkness"]),
        ("Le Petit Prince — édition", ["le", "petit", "prince", "edition"]),
        ("Pride & Prejudice", ["pride", "and", "prejudice"]),
        ("The Wise Man's Fear", ["the", "wise", "man", "s", "fear"]),
        ("  ", []),
    ])
    func tokens(_ text: String, _ expected: [String]) {
        #expect(TextNormalizer.tokens(text) == expected)
    }

    /// ASCII text is split in one pass over its bytes; a title that turns out not to be ASCII part
    /// way through is split by the general path from its start, the tokens made so far dropped.
    @Test(arguments: [
        ("R&D: 2001 A SPACE Odyssey!!", ["r", "and", "d", "2001", "a", "space", "odyssey"]),
        ("...Leading and trailing...", ["leading", "and", "trailing"]),
        ("Supercalifragilisticexpialidocious Words", ["supercalifragilisticexpialidocious", "words"]),
        ("Zz09AZaz", ["zz09azaz"]),
        ("Abc Déf", ["abc", "def"]),
        ("&&", ["and", "and"]),
        ("", []),
    ])
    func asciiTokensAreTheGeneralPaths(_ text: String, _ expected: [String]) {
        #expect(TextNormalizer.tokens(text) == expected)
    }

    @Test(arguments: [
        ("J. R. R. Tolkien", ["jrr", "tolkien"]),
        ("J.R.R. Tolkien", ["jrr", "tolkien"]),
        ("Tolkien, J.R.R.", ["jrr", "tolkien"]),
        ("Le Guin, Ursula K.", ["ursula", "k", "le", "guin"]),
        ("N.K. Jemisin", ["nk", "jemisin"]),
        ("Antoine de Saint-Exupéry", ["antoine", "de", "saint", "exupery"]),
        // Issue 12: the byte search for the comma (ASCII names) and the Character one agree.
        ("Saint-Exupéry, Antoine de", ["antoine", "de", "saint", "exupery"]),
        ("Smith, John, Jr.", ["smith", "john", "jr"]),
        ("Émile, Zola, X", ["emile", "zola", "x"]),
        (",Tolkien", ["tolkien"]),
    ])
    func nameTokens(_ name: String, _ expected: [String]) {
        #expect(TextNormalizer.nameTokens(name) == expected)
    }

    @Test(arguments: [
        ("Dune (Dune, #1)", "Dune"),
        ("The Fifth Season (The Broken Earth, #1)", "The Fifth Season"),
        ("Notes [Annotated] (Series, #2)", "Notes"),
        ("(Untitled)", "(Untitled)"),
        ("Piranesi", "Piranesi"),
        // Issue 12: the ASCII fast path leaves these to the full rule.
        (" Piranesi\t", "Piranesi"),
        ("Dune (Dune, #1) ", "Dune"),
        ("\u{00A0}Dune\u{2003}", "Dune"),
        ("Dune]", "Dune]"),
        ("Émile", "Émile"),
    ])
    func strippingSeries(_ title: String, _ expected: String) {
        #expect(TextNormalizer.strippingSeries(title) == expected)
    }

    /// Issue 12: the byte search answers as the `Character` search does.
    @Test(arguments: ["Title: Sub", "No colon", "Été: x", "a\u{301}:b", ":", "", "x:\u{301}y: z"])
    func firstColon(_ text: String) {
        #expect(TextNormalizer.firstIndex(of: ":", in: text) == text.firstIndex(of: ":"))
    }

    /// Issue 12: the fast path answers as Foundation's trimming does.
    @Test(arguments: [
        "Frank Herbert", " Frank Herbert", "Frank Herbert\t", "\u{00A0}Émile Zola\u{2003}", "Émile", "Zola é",
        "", "  ", "\nName\n", "Name\u{7F}", "O'Brien, Tim",
    ])
    func trimmingWhitespace(_ text: String) {
        #expect(TextNormalizer.trimmingWhitespace(text) == text.trimmingCharacters(in: .whitespaces))
    }

    @Test(
        arguments: [
            ("9780441172719", "9780441172719"),
            ("0441172717", "9780441172719"),
            ("0-441-17271-7", "9780441172719"),
            ("163557563X", "9781635575637"),
            ("163557563x", "9781635575637"),
            ("9771234567898", nil),  // issue 14: one rule with parse, the 978/979 prefix is required
            ("9780441172718", nil),
            ("0441172718", nil),
            ("B00ABCDEFG", nil),
            ("", nil),
        ] as [(String, String?)])
    func isbnCanonical(_ raw: String, _ expected: String?) {
        #expect(ISBN.canonical13(raw) == expected)
    }
}
