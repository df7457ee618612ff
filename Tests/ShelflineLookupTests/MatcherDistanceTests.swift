import ShelflineCore
import Testing

@testable import ShelflineLookup

/// The matcher's fast paths must give exactly what the plain definitions give: the bit-parallel
/// edit distance against the dynamic-programming table, the bounded similarity against the unbounded.
@Suite struct MatcherDistanceTests {
    /// A deterministic generator (SplitMix64), so a failure names a reproducible case.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    /// Few distinct letters (many equal pairs), a space, and non-ASCII scalars (é, ß, a CJK one, an emoji).
    static let alphabet: [Unicode.Scalar] = ["a", "b", "c", "e", " ", "é", "ß", "书", "😀"]

    static func text(_ generator: inout Generator, maxLength: Int) -> [Unicode.Scalar] {
        (0..<generator.below(maxLength + 1)).map { _ in alphabet[generator.below(alphabet.count)] }
    }

    @Test func bitParallelDistanceEqualsTheTable() {
        var generator = Generator(state: 12)
        for round in 0..<3_000 {
            // Lengths around the 64-scalar word: below, at and past it (the table then serves).
            let maxLength = [8, 40, 63, 64, 65, 90][round % 6]
            let lhs = Self.text(&generator, maxLength: maxLength), rhs = Self.text(&generator, maxLength: maxLength)
            let expected = lhs.isEmpty || rhs.isEmpty ? max(lhs.count, rhs.count) : EditDistance.tableDistance(lhs, rhs)
            #expect(
                EditDistance.levenshtein(lhs, rhs) == expected,
                "\(String(String.UnicodeScalarView(lhs))) / \(String(String.UnicodeScalarView(rhs)))")
            #expect(EditDistance.levenshtein(rhs, lhs) == expected)
        }
    }

    @Test(arguments: [
        ("kitten", "sitting", 3), ("", "abc", 3), ("abc", "", 3), ("flaw", "lawn", 2), ("philosophers", "philosopher s", 1),
        ("Saint-Exupéry", "Saint Exupery", 2), (String(repeating: "a", count: 64), String(repeating: "a", count: 63) + "b", 1),
    ])
    func knownDistances(_ lhs: String, _ rhs: String, _ distance: Int) {
        #expect(EditDistance.levenshtein(Array(lhs.unicodeScalars), Array(rhs.unicodeScalars)) == distance)
    }

    @Test func boundedSimilarityKeepsTheMaximum() {
        var generator = Generator(state: 99)
        let words = ["the", "dark", "tower", "towers", "glass", "night", "1", "ii", "river", "rivers"]
        func title() -> [String] { (0..<(1 + generator.below(5))).map { _ in words[generator.below(words.count)] } }
        for _ in 0..<2_000 {
            let user = title()
            let others = (0..<4).map { _ in title() }
            var plain = 0.0, bounded = 0.0
            for other in others {
                plain = max(plain, Matcher.similarity(user, other))
                bounded = max(bounded, Matcher.similarity(user, other, exceeding: bounded))
            }
            #expect(plain == bounded, "\(user) vs \(others)")
        }
    }
}
