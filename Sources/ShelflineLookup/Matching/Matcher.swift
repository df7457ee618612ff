import ShelflineCore

/// What the matcher knows about the user's book.
public struct LookupQuery: Sendable, Equatable {
    public var title: String
    public var authors: [String]
    public var year: Int?
    public var publisher: String?
    public var pages: Int?

    public init(title: String, authors: [String], year: Int? = nil, publisher: String? = nil, pages: Int? = nil) {
        self.title = title
        self.authors = authors
        self.year = year
        self.publisher = publisher
        self.pages = pages
    }

    /// The query for a record: the title without its series suffix, primary author first.
    public init(record: BookRecord) {
        title = record.titleBase ?? TextNormalizer.strippingSeries(record.title)
        authors = ([record.author] + (record.additionalAuthors ?? []).map { Optional($0) })
            .compactMap { $0?.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        year = record.year
        publisher = record.publisher
        pages = record.pages
    }
}

/// The matcher's verdict on a set of candidates.
public enum MatchDecision: Sendable, Equatable {
    /// Title and author match closely and the best work clearly beats the runner-up.
    case accept(EditionMetadata, score: Double)
    /// Plausible candidates, but not certain enough: best first.
    case review([MatchCandidate])
    /// Nothing close enough to show.
    case none
}

/// Scores candidates against a query and decides whether one may be accepted without a person.
///
/// The rule that keeps wrong books out: accept only when the title score ≥ `titleThreshold`, the
/// author score ≥ `authorThreshold`, and the combined score beats the best candidate of any *other
/// work* by at least `margin`. Editions of one work are one book; the best edition is chosen by
/// score, then by agreement with the user's year, publisher and pages.
public struct Matcher: Sendable {
    public var titleThreshold = 0.9
    public var authorThreshold = 0.85
    public var margin = 0.1
    /// Candidates below this combined score are not worth showing for review.
    public var reviewFloor = 0.45
    public var maxCandidates = 5

    public init() {}

    public struct Scored: Sendable {
        public var edition: EditionMetadata
        public var title: Double
        public var author: Double
        public var combined: Double { 0.6 * title + 0.4 * author }
    }

    public func score(_ query: LookupQuery, _ candidate: EditionMetadata) -> Scored {
        score(PreparedQuery(query), candidate)
    }

    func score(_ prepared: PreparedQuery, _ candidate: EditionMetadata) -> Scored {
        Scored(edition: candidate, title: titleScore(prepared, candidate), author: authorScore(prepared.names, candidate.authors ?? []))
    }

    public func decide(_ query: LookupQuery, candidates: [EditionMetadata]) -> MatchDecision {
        guard !candidates.isEmpty else { return .none }
        // Best edition per work (editions without a work are their own book).
        var bestPerWork: [String: Scored] = [:]
        let prepared = PreparedQuery(query)
        for candidate in candidates {
            let scored = score(prepared, candidate)
            let book = candidate.workKey ?? candidate.editionKey ?? candidate.title ?? ""
            if let existing = bestPerWork[book], !isBetterEdition(scored, than: existing, for: query) { continue }
            bestPerWork[book] = scored
        }
        let ranked = bestPerWork.values.sorted { lhs, rhs in
            if lhs.combined != rhs.combined { return lhs.combined > rhs.combined }
            return (lhs.edition.editionKey ?? lhs.edition.workKey ?? "") < (rhs.edition.editionKey ?? rhs.edition.workKey ?? "")
        }
        let best = ranked[0]
        let runnerUp = ranked.count > 1 ? ranked[1].combined : 0
        if best.title >= titleThreshold && best.author >= authorThreshold && best.combined - runnerUp >= margin {
            return .accept(best.edition, score: rounded(best.combined))
        }
        let shown = ranked.filter { $0.combined >= reviewFloor }.prefix(maxCandidates)
        guard !shown.isEmpty else { return .none }
        return .review(shown.map { scored in
            MatchCandidate(key: scored.edition.editionKey ?? scored.edition.workKey ?? "", workKey: scored.edition.workKey,
                           title: scored.edition.title ?? "", authors: scored.edition.authors ?? [],
                           score: rounded(scored.combined))
        })
    }

    private func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    private func isBetterEdition(_ candidate: Scored, than existing: Scored, for query: LookupQuery) -> Bool {
        if candidate.combined != existing.combined { return candidate.combined > existing.combined }
        let lhs = agreement(candidate.edition, query), rhs = agreement(existing.edition, query)
        if lhs != rhs { return lhs > rhs }
        return (candidate.edition.editionKey ?? "") < (existing.edition.editionKey ?? "")
    }

    /// How many of the user's edition details (year, publisher, pages) the edition shares.
    private func agreement(_ edition: EditionMetadata, _ query: LookupQuery) -> Int {
        var points = 0
        if let year = query.year, edition.year == year { points += 1 }
        if let publisher = query.publisher, let publishers = edition.publishers,
           publishers.contains(where: { TextNormalizer.tokens($0) == TextNormalizer.tokens(publisher) }) { points += 1 }
        if let pages = query.pages, let editionPages = edition.pages, abs(pages - editionPages) <= 5 { points += 1 }
        return points
    }

    // MARK: Similarities

    /// The user's side of the comparison, tokenised once per query rather than per candidate.
    struct PreparedQuery {
        var titleForms: [[String]]
        var names: [[String]]

        init(_ query: LookupQuery) {
            var forms = [TextNormalizer.tokens(TextNormalizer.strippingSeries(query.title))]
            if let colon = query.title.firstIndex(of: ":") { forms.append(TextNormalizer.tokens(String(query.title[..<colon]))) }
            // A leading article is not part of what people remember of a title.
            titleForms = forms + forms.map(Matcher.droppingArticle)
            names = query.authors.map(TextNormalizer.nameTokens).filter { !$0.isEmpty }
        }
    }

    func titleScore(_ title: String, _ candidate: EditionMetadata) -> Double {
        titleScore(PreparedQuery(LookupQuery(title: title, authors: [])), candidate)
    }

    func titleScore(_ prepared: PreparedQuery, _ candidate: EditionMetadata) -> Double {
        let userForms = prepared.titleForms
        let candidateTitle = candidate.title ?? ""
        var candidateForms = [TextNormalizer.tokens(TextNormalizer.strippingSeries(candidateTitle))]
        if let subtitle = candidate.subtitle, !subtitle.isEmpty {
            candidateForms.append(TextNormalizer.tokens(candidateTitle + " " + subtitle))
        }
        candidateForms += candidateForms.map(Self.droppingArticle)
        var best = 0.0
        for user in userForms where !user.isEmpty {
            for other in candidateForms where !other.isEmpty {
                best = max(best, Self.similarity(user, other))
            }
        }
        return best
    }

    func authorScore(_ names: [[String]], _ candidateAuthors: [String]) -> Double {
        var best = 0.0
        let others = candidateAuthors.map(TextNormalizer.nameTokens)
        for user in names {
            for other in others {
                best = max(best, Self.nameSimilarity(user, other))
            }
        }
        return best
    }

    static func droppingArticle(_ tokens: [String]) -> [String] {
        guard tokens.count > 1, let first = tokens.first, ["the", "a", "an"].contains(first) else { return tokens }
        return Array(tokens.dropFirst())
    }

    /// 1 for the same tokens; otherwise the larger of token overlap (Dice) and edit-distance
    /// similarity of the joined text (typos, `philosophers` vs `philosopher s`).
    static func similarity(_ lhs: [String], _ rhs: [String]) -> Double {
        if lhs == rhs { return 1 }
        var remaining = rhs
        var common = 0
        for token in lhs {
            if let index = remaining.firstIndex(of: token) {
                common += 1
                remaining.remove(at: index)
            }
        }
        let dice = 2 * Double(common) / Double(lhs.count + rhs.count)
        let left = Array(lhs.joined(separator: " ").unicodeScalars), right = Array(rhs.joined(separator: " ").unicodeScalars)
        // The edit distance is at least the length difference: skip it when it cannot beat the overlap.
        let longest = Double(max(left.count, right.count))
        if 1 - Double(abs(left.count - right.count)) / longest <= dice { return dice }
        let distance = levenshtein(left, right)
        let edit = 1 - Double(distance) / Double(max(left.count, right.count))
        return max(dice, edit)
    }

    /// Names: same tokens in any order → 1; same surname with compatible given names/initials → 0.9.
    static func nameSimilarity(_ lhs: [String], _ rhs: [String]) -> Double {
        guard !lhs.isEmpty, !rhs.isEmpty else { return 0 }
        if lhs.sorted() == rhs.sorted() { return 1 }
        if lhs.last == rhs.last {
            let given = lhs.dropLast(), otherGiven = rhs.dropLast()
            if given.isEmpty || otherGiven.isEmpty { return 0.85 }
            if given.first?.first == otherGiven.first?.first { return 0.9 }
            // A surname alone, possibly of several words (`Le Guin` for `Ursula K. Le Guin`).
            let (short, long) = lhs.count < rhs.count ? (lhs, rhs) : (rhs, lhs)
            if long.suffix(short.count).elementsEqual(short) { return 0.85 }
        }
        return similarity(lhs.sorted(), rhs.sorted()) * 0.9
    }

    static func levenshtein(_ lhs: [Unicode.Scalar], _ rhs: [Unicode.Scalar]) -> Int {
        if lhs.isEmpty { return rhs.count }
        if rhs.isEmpty { return lhs.count }
        var previous = Array(0...rhs.count)
        var current = [Int](repeating: 0, count: rhs.count + 1)
        for i in 1...lhs.count {
            current[0] = i
            for j in 1...rhs.count {
                let cost = lhs[i - 1] == rhs[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[rhs.count]
    }
}
