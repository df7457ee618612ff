import Testing

@testable import ShelflineCore

/// The one rule for "the same book" without an ISBN (`TitleIdentity`): what folds, what never does.
@Suite struct TitleIdentityTests {
    private func identity(_ title: String, _ author: String?, series: String? = nil) -> TitleIdentity {
        TitleIdentity(title: title, seriesPosition: series, author: author)!
    }

    /// Roman numerals set volumes apart only in their standard form, 1 to 89; a lone `l` is an article.
    @Test(.bug(id: 37)) func romanNumeralsAreTheStandardFormsBelowNinety() {
        for numeral in ["i", "ii", "iii", "iv", "ix", "xiv", "xix", "xl", "xlix", "lv", "lxxxix"] {
            #expect(DistinguishingTokens.isRomanNumeral(numeral), "\(numeral)")
        }
        for token in ["", "l", "iiii", "vv", "iiv", "ic", "xc", "lxxxx", "xxxx", "vx", "il", "livre", "mix"] {
            #expect(!DistinguishingTokens.isRomanNumeral(token), "\(token)")
        }
    }

    /// Rows exports spell differently that are one book.
    @Test(
        arguments: [
            (("The Left Hand of Darkness", "Ursula K. Le Guin"), ("Left Hand of Darkness, The", "Le Guin, Ursula K.")),
            (("Cien años de soledad", "Gabriel García Márquez"), ("CIEN AÑOS DE SOLEDAD", "Garcia Marquez, Gabriel")),
            (("Sapiens: A Brief History of Humankind", "Yuval Noah Harari"), ("Sapiens", "Yuval  Harari")),
            (("Dune (Kindle Edition)", "Frank Herbert"), ("Dune", "Herbert, Frank")),
            (("Der Process (German Edition)", "Franz Kafka"), ("Der Process", "F. Kafka")),
            (("The Hobbit", "J.R.R. Tolkien"), ("Hobbit", "John Ronald Reuel Tolkien")),
            (("Thinking, Fast and Slow", "Daniel Kahneman"), ("thinking fast & slow", "Daneil Kahneman")),
            (("Don't Look Back", "Karin Fossum"), ("Dont Look Back", "Fossum, Karin")),
        ] as [((String, String), (String, String))])
    func sameBookSpelledDifferentlyIsOneBook(a: (String, String), b: (String, String)) {
        #expect(identity(a.0, a.1).isSameBook(as: identity(b.0, b.1)))
        #expect(identity(b.0, b.1).isSameBook(as: identity(a.0, a.1)))
    }

    /// The near misses of issue 21: different books that share a main title and an author.
    @Test(
        .bug(id: 21),
        arguments: [
            (
                ("The Grammar Book: A Guide (The Grammar Book, #1)", "1"),
                ("The Grammar Book: Even More (The Grammar Book, #3)", "3")
            ),
            (("The Grammar Book (The Grammar Book, #1)", "1"), ("The Grammar Book (The Grammar Book, #2)", "2")),
            (("Data Stories: A Guide for Professionals", nil), ("Data Stories: Let's Practice!", nil)),
            (("Comic: Time", nil), ("Comic: volume 0", nil)),
            (("Hacking People: The Art of Deception", nil), ("Hacking People: The Science of Deception", nil)),
            (("Data Stories", nil), ("Data Stories: Workbook", nil)),
            (("Dune", nil), ("Dune: Book Two", nil)),
            (("Dune", nil), ("Dune Messiah", nil)),
            (("Harry Potter (Volume 2)", nil), ("Harry Potter", nil)),
            (("Queenie (Queenie, #1-3)", "1-3"), ("Queenie", nil)),
            (("Queenie (Queenie, #1-3)", "1-3"), ("Queenie (Queenie, #1)", "1")),
        ] as [((String, String?), (String, String?))])
    func titlesTheRuleSeparatesAreTwoBooks(a: (String, String?), b: (String, String?)) {
        let left = identity(a.0, "Ann Writer", series: a.1), right = identity(b.0, "Ann Writer", series: b.1)
        #expect(!left.isSameBook(as: right))
        #expect(!right.isSameBook(as: left))
    }

    @Test func sameSurnameOtherGivenNameIsAnotherAuthor() {
        #expect(!identity("The Shining", "Stephen King").isSameBook(as: identity("The Shining", "Tabitha King")))
        #expect(identity("The Shining", "Stephen King").isSameBook(as: identity("The Shining", "King")))
        #expect(identity("The Shining", "King, Stephen").isSameBook(as: identity("The Shining", "S. King")))
    }

    @Test func aRowWithoutSubtitleOrNumberIsCompatibleWithTheBookThatHasThem() {
        let full = identity("The Grammar Book: A Guide (The Grammar Book, #1)", "Ann Writer", series: "1")
        #expect(identity("The Grammar Book", "Ann Writer").isSameBook(as: full))
        #expect(identity("The Grammar Book: A Guide", "Ann Writer").isSameBook(as: full))
        #expect(identity("The Grammar Book", "Ann Writer", series: "01").isSameBook(as: full))
    }

    /// Cyrillic `й` is its own letter: folding it into `и` made two titles one book (issue 23).
    /// `Frozen Frontier (Frozen Frontier, #5)` and `Frozen Frontier: A Guide` each name what the
    /// other lacks: two halves that may be one book or two (the bench found both), so not surely one.
    @Test(.bug(id: 21)) func aTitleNamingOnlyASubtitleAndOneNamingOnlyANumberAreNotSurelyOneBook() {
        let numbered = identity("Frozen Frontier (Frozen Frontier, #5)", "Ann Writer", series: "5")
        let subtitled = identity("Frozen Frontier: A Guide", "Ann Writer")
        #expect(!numbered.isSameBook(as: subtitled) && !subtitled.isSameBook(as: numbered))
        // Either joins the whole title, which names both.
        let whole = identity("Frozen Frontier: A Guide (Frozen Frontier, #5)", "Ann Writer", series: "5")
        #expect(numbered.isSameBook(as: whole) && subtitled.isSameBook(as: whole))
    }

    @Test func lettersOfOtherScriptsKeepTheirMarks() {
        #expect(TextNormalizer.tokens("Мой дом") == ["мой", "дом"])
        #expect(!identity("Мой дом", "Иван Петров").isSameBook(as: identity("Мои дом", "Иван Петров")))
        #expect(TextNormalizer.tokens("CAFÉ Ｆｏｏ") == ["cafe", "foo"])
        // Decomposed and composed forms are one text.
        #expect(TextNormalizer.tokens("Cafe\u{301}") == TextNormalizer.tokens("Café"))
        #expect(TextNormalizer.tokens("Мои\u{306}") == TextNormalizer.tokens("Мой"))
    }

    @Test func keysRoundTripAndLegacyKeysReadAsMainTitles() throws {
        let title = identity("The Grammar Book: A Guide (The Grammar Book, #1)", "Writer, Ann", series: "1")
        #expect(title.key == "tk:grammar book|writer|a guide|1|a")
        #expect(TitleIdentity(key: title.key) == title)
        let legacy = try #require(TitleIdentity(key: "ta:grammar book|writer"))
        #expect(legacy.mainKey == title.mainKey && legacy.isSameBook(as: title))
        #expect(TitleIdentity(key: "isbn:9780306406157") == nil)
    }

    /// Compatible identities are equivalent titles by the matcher's rule (`TitleRelation`), on a
    /// grid of main titles, subtitles and series parts: the index never folds what it separates.
    @Test func compatibleIdentitiesAreEquivalentTitles() {
        let mains = ["The Grammar Book", "Dune", "Data Stories"]
        let subtitles = ["", ": A Guide", ": Even More", ": Workbook", ": Book Two", ": volume 0", ": a guide!"]
        let series = ["", " (Series, #1)", " (Series, #2)", " (Volume 3)"]
        let titles = mains.flatMap { main in subtitles.flatMap { sub in series.map { main + sub + $0 } } }
        for a in titles {
            for b in titles {
                let left = identity(a, "Ann Writer", series: seriesNumber(a)),
                    right = identity(b, "Ann Writer", series: seriesNumber(b))
                guard left.isSameBook(as: right) else { continue }
                let relation = TitleRelation.between(TitleParts(title: a), TitleParts(title: b))
                guard case .equivalent = relation else {
                    Issue.record("\(a) / \(b): folded, but the title rule says \(relation)")
                    continue
                }
            }
        }
    }

    private func seriesNumber(_ title: String) -> String? {
        guard let hash = title.firstIndex(of: "#") else { return nil }
        return String(title[title.index(after: hash)...].prefix { $0.isNumber })
    }
}
