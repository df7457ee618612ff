import ShelflineCore
import Testing

@testable import ShelflineLookup

/// The words a row's search is made of are made once per row (`SearchTerms`); the key rows are
/// grouped and cached by must stay the one `TextNormalizer.queryKey` gives, or the lookup cache of
/// earlier runs would miss and rows would group differently.
@Suite struct SearchTermsTests {
    static let titles = [
        "Dune", "The Left Hand of Darkness (Hainish Cycle, #4)", "Ender's Game [Ender Quintet 1]", "  Spaced  Out  ",
        "Cats & Dogs: A Story", "Les Misérables", "Der Zauberberg: Roman", "“Curly” — quotes…", "", "   ", "(Only a series)",
        "東京 物語", "A", "Stop. Go? 2001",
    ]
    static let authors: [String?] = [
        nil, "", "Frank Herbert", "Le Guin, Ursula K.", "J. R. R. Tolkien", "Tolkien, J.R.R.", "Gabriel García Márquez",
        "Brontë, Charlotte, and Emily", "A. B. C.", "村上 春樹",
    ]

    @Test func queryKeyIsTheNormalisersKey() {
        for title in Self.titles {
            for author in Self.authors {
                #expect(
                    SearchTerms(title: title, author: author).queryKey == TextNormalizer.queryKey(title: title, author: author),
                    "\(title) / \(author ?? "nil")")
            }
        }
    }

    /// The catalog's search hashes a row's exact title key from its words without joining them,
    /// and hashes no token longer than any stopword to tell it is none.
    @Test func titleKeyHashFromTheWordsIsTheHashOfTheKey() {
        for title in Self.titles {
            let tokens = SearchTerms(title: title, author: nil).titleTokens
            #expect(
                CatalogIndex.titleHash(joining: Matcher.droppingArticle(tokens))
                    == CatalogIndex.titleHash(TextNormalizer.titleKey(title)), "\(title)")
        }
        #expect(TextNormalizer.stopwords.allSatisfy { $0.utf8.count <= 3 })
    }
}
