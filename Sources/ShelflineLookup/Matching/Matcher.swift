import ShelflineCore

/// What the matcher knows about the user's book.
public struct LookupQuery: Sendable, Equatable {
    public var title: String
    public var authors: [String]
    public var year: Int?
    public var publisher: String?
    public var pages: Int?
    /// Canonical ISBN-13 (from the ISBN-10 when that is all the record has): asked of every
    /// source, and the edition that carries it preferred.
    public var isbn: String?
}

// In an extension, so that the memberwise initializer stays.
extension LookupQuery {
    /// The title without its series suffix, primary author first.
    public init(record: BookRecord) {
        title = record.titleBase ?? TextNormalizer.strippingSeries(record.title)
        authors = ((record.author.map { [$0] } ?? []) + (record.additionalAuthors ?? []))
            .map(TextNormalizer.trimmingWhitespace).filter { !$0.isEmpty }
        year = record.year
        publisher = record.publisher
        pages = record.pages
    }
}

/// The matcher's verdict on a set of candidates.
public enum MatchDecision: Sendable, Equatable {
    /// One work's title is equivalent to the user's, its authors match, and no other work's does.
    case accept(EditionMetadata, score: Double)
    /// Plausible candidates, not certain enough: best first, each with why it was not accepted.
    case review([MatchCandidate])
    /// Kept with the not enriched row, each with its reason, so nothing is hidden.
    case ruledOut([MatchCandidate])
    case none
}

/// Decides whether a candidate may be accepted without a person, by what titles mean.
///
/// Acceptable: an *equivalent* title (`TitleRelation`) and a shared author, never the title alone;
/// a work is accepted when it is the only acceptable one at the best tier, with the edition that
/// agrees on the ISBN, then year, publisher and pages. Anything else plausible goes to review.
public struct Matcher: Sendable {
    /// Two names at least this similar are one person.
    public var authorThreshold = 0.85
    /// Candidates of another title below this combined score are not worth showing for review.
    public var reviewFloor = 0.45
    public var maxCandidates = 5

    public struct Scored: Sendable {
        public var edition: EditionMetadata
        public var title: Double
        public var author: Double
        public var relation: TitleRelation = .different
        public var authors: AuthorRelation = .unknown
        public var combined: Double { 0.6 * title + 0.4 * author }

        var acceptTier: Int? {
            if case .equivalent(let tier) = relation, authors == .match { return tier }
            return nil
        }
    }

    /// Whether the candidate's authors share a person with the row's.
    public enum AuthorRelation: Sendable, Equatable {
        case match, disjoint, unknown
    }

    public func score(_ query: LookupQuery, _ candidate: EditionMetadata) -> Scored {
        score(PreparedQuery(query), PreparedEdition(candidate))
    }

    func score(_ prepared: PreparedQuery, _ candidate: PreparedEdition) -> Scored {
        let (author, authors) = authorRelation(prepared.names, candidate.names)
        var scored = Scored(edition: candidate.edition, title: titleScore(prepared, candidate), author: author)
        scored.relation = TitleRelation.between(prepared.parts, candidate.parts)
        scored.authors = authors
        return scored
    }

    /// Skips pairs of other surnames (at most 0.8): most candidates are by other people.
    func authorsMatch(_ names: [ComparedName], _ others: [ComparedName]) -> Bool {
        guard authorThreshold > Self.otherSurnameCeiling else { return authorRelation(names, others).relation == .match }
        for user in names where !user.tokens.isEmpty {
            for other in others
            where !other.tokens.isEmpty && (user.tokens.last == other.tokens.last || user.sorted == other.sorted) {
                if Self.nameSimilarity(user, other) >= authorThreshold { return true }
            }
        }
        return false
    }

    /// The most `nameSimilarity` gives two names whose surnames and tokens differ.
    static let otherSurnameCeiling = 0.8

    func authorRelation(_ names: [ComparedName], _ others: [ComparedName]) -> (score: Double, relation: AuthorRelation) {
        let author = authorScore(names, others)
        guard !names.isEmpty, !others.isEmpty else { return (author, .unknown) }
        return (author, author >= authorThreshold ? .match : .disjoint)
    }

    public func decide(_ query: LookupQuery, candidates: [EditionMetadata]) -> MatchDecision {
        decide(query, prepared: candidates.map(PreparedEdition.init))
    }

    /// Over candidates normalised beforehand (a source that sees an edition again keeps them).
    public func decide(_ query: LookupQuery, prepared candidates: [PreparedEdition]) -> MatchDecision {
        decide(query, PreparedQuery(query), candidates)
    }

    /// Loads the hits whose authors match first: any other has no accept tier, so an acceptance
    /// among them is the verdict over all.
    func decide<Hit>(
        _ query: LookupQuery, hits: [Hit], names: (Hit) -> [ComparedName],
        load: ([Hit]) throws -> [PreparedEdition]
    ) rethrows -> MatchDecision {
        guard !hits.isEmpty else { return .none }
        let prepared = PreparedQuery(query)
        let authored = hits.filter { authorsMatch(prepared.names, names($0)) }
        guard !authored.isEmpty else { return decide(query, prepared, try load(hits)) }
        let decision = decide(query, prepared, try load(authored))
        if case .accept = decision { return decision }
        return authored.count == hits.count ? decision : decide(query, prepared, try load(hits))
    }

    private func decide(_ query: LookupQuery, _ prepared: PreparedQuery, _ candidates: [PreparedEdition]) -> MatchDecision {
        guard !candidates.isEmpty else { return .none }
        var bestPerWork: [String: Scored] = [:]
        // Editions sharing one normalisation score alike: scored once.
        var scores: [ObjectIdentifier: Scored] = [:]
        for preparedCandidate in candidates {
            let shared = ObjectIdentifier(preparedCandidate.normalised)
            var scored: Scored
            if let known = scores[shared] {
                scored = known
                scored.edition = preparedCandidate.edition
            } else {
                scored = score(prepared, preparedCandidate)
                scores[shared] = scored
            }
            let candidate = preparedCandidate.edition
            let book = candidate.workKey ?? candidate.editionKey ?? candidate.title ?? ""
            if let existing = bestPerWork[book], !isBetterEdition(scored, than: existing, for: query) { continue }
            bestPerWork[book] = scored
        }
        let ranked = bestPerWork.values.sorted { lhs, rhs in
            let left = lhs.acceptTier ?? 0, right = rhs.acceptTier ?? 0
            if left != right { return left > right }
            if lhs.combined != rhs.combined { return lhs.combined > rhs.combined }
            return (lhs.edition.editionKey ?? lhs.edition.workKey ?? "") < (rhs.edition.editionKey ?? rhs.edition.workKey ?? "")
        }
        let best = ranked[0]
        if let tier = best.acceptTier, !ranked.dropFirst().contains(where: { $0.acceptTier == tier }) {
            return .accept(best.edition, score: rounded(best.combined))
        }
        let bestTier = best.acceptTier
        var open = false
        let shown = ranked.compactMap { scored -> MatchCandidate? in
            let competing = bestTier != nil && scored.acceptTier == bestTier
            guard let reason = reviewReason(scored, competing: competing) else { return nil }
            if !isRuledOut(scored, competing: competing, names: prepared.names) { open = true }
            return MatchCandidate(scored.edition, score: rounded(scored.combined), reason: reason)
        }.prefix(maxCandidates)
        guard !shown.isEmpty else { return .none }
        return open ? .review(Array(shown)) : .ruledOut(Array(shown))
    }

    /// Another title, or an equivalent one by other people (`Anna Adichie` is not `Chimamanda Ngozi
    /// Adichie`): a person asked would answer "no" every time.
    func isRuledOut(_ scored: Scored, competing: Bool, names: [ComparedName]) -> Bool {
        if competing { return false }
        switch scored.relation {
        case .distinguishing, .subtitleDiffers, .different:
            return true
        case .equivalent:
            guard scored.authors == .disjoint else { return false }
            // A shared name token and, where both give one, the same first initial.
            func maySamePerson(_ a: ComparedName, _ b: ComparedName) -> Bool {
                guard a.tokens.contains(where: b.tokens.contains) else { return false }
                guard a.tokens.count > 1, b.tokens.count > 1 else { return true }
                return a.tokens[0].first == b.tokens[0].first
            }
            let theirs = Normalisation.names(of: scored.edition)
            return !names.contains { mine in theirs.contains { maySamePerson(mine, $0) } }
        }
    }

    /// Why a candidate was not accepted, or nil when it is not worth showing.
    func reviewReason(_ scored: Scored, competing: Bool) -> String? {
        if competing { return "another work matches as well" }
        switch (scored.relation, scored.authors) {
        case (.equivalent, .match):
            return "a closer title matched another work"
        case (.equivalent, .disjoint):
            return "author mismatch"
        case (.equivalent, .unknown):
            return "no author to compare"
        case (.distinguishing(let token), .match), (.distinguishing(let token), .unknown):
            return "title differs in \"\(token)\""
        case (.subtitleDiffers, .match), (.subtitleDiffers, .unknown):
            return "subtitle differs"
        case (.different, .match), (.different, .unknown):
            return scored.combined >= reviewFloor ? "title differs" : nil
        case (.distinguishing, .disjoint), (.subtitleDiffers, .disjoint), (.different, .disjoint):
            return nil
        }
    }

    /// Neither title nor authors agree (a translation by the same author is no conflict).
    public func isbnConflict(_ query: LookupQuery, _ edition: EditionMetadata) -> Bool {
        guard !query.title.isEmpty, edition.title?.isEmpty == false else { return false }
        let scored = score(query, edition)
        if case .equivalent = scored.relation { return false }
        return scored.authors == .disjoint
    }

    private func rounded(_ value: Double) -> Double { (value * 1000).rounded() / 1000 }

    private func isBetterEdition(_ candidate: Scored, than existing: Scored, for query: LookupQuery) -> Bool {
        let lhsTier = candidate.acceptTier ?? 0, rhsTier = existing.acceptTier ?? 0
        if lhsTier != rhsTier { return lhsTier > rhsTier }
        let lhsISBN = agreesOnISBN(candidate.edition, query), rhsISBN = agreesOnISBN(existing.edition, query)
        if lhsISBN != rhsISBN { return lhsISBN }
        if candidate.combined != existing.combined { return candidate.combined > existing.combined }
        let lhs = agreement(candidate.edition, query), rhs = agreement(existing.edition, query)
        if lhs != rhs { return lhs > rhs }
        return (candidate.edition.editionKey ?? "") < (existing.edition.editionKey ?? "")
    }

    private func agreesOnISBN(_ edition: EditionMetadata, _ query: LookupQuery) -> Bool {
        query.isbn.map(edition.carries) ?? false
    }

    /// How many of the user's edition details (year, publisher, pages) the edition shares.
    private func agreement(_ edition: EditionMetadata, _ query: LookupQuery) -> Int {
        var points = 0
        if let year = query.year, edition.year == year { points += 1 }
        if let publisher = query.publisher, let publishers = edition.publishers,
            publishers.contains(where: { TextNormalizer.tokens($0) == TextNormalizer.tokens(publisher) })
        {
            points += 1
        }
        if let pages = query.pages, let editionPages = edition.pages, abs(pages - editionPages) <= 5 { points += 1 }
        return points
    }

    /// Tokenised once per query rather than per candidate.
    struct PreparedQuery {
        var titleForms: [[String]]
        var names: [ComparedName]
        var parts: TitleParts

        init(_ query: LookupQuery) {
            parts = TitleParts(title: query.title)
            var forms = [TextNormalizer.tokens(TextNormalizer.strippingSeries(query.title))]
            if let colon = TextNormalizer.firstIndex(of: ":", in: query.title) {
                forms.append(TextNormalizer.tokens(String(query.title[..<colon])))
            }
            // A leading article is not part of what people remember of a title.
            titleForms = forms + forms.map(Matcher.droppingArticle)
            names = query.authors.map(TextNormalizer.nameTokens).filter { !$0.isEmpty }.map(ComparedName.init)
        }
    }

    func titleScore(_ prepared: PreparedQuery, _ candidate: PreparedEdition) -> Double {
        var best = 0.0
        for user in prepared.titleForms where !user.isEmpty {
            for other in candidate.titleForms where !other.isEmpty {
                best = max(best, Self.similarity(user, other, exceeding: best))
            }
        }
        return best
    }

    func authorScore(_ names: [ComparedName], _ others: [ComparedName]) -> Double {
        var best = 0.0
        for user in names {
            for other in others {
                best = max(best, Self.nameSimilarity(user, other))
            }
        }
        return best
    }

    /// Normalised once per edition, not per query: a common title's editions come back for many rows.
    public struct PreparedEdition: Sendable {
        public let edition: EditionMetadata
        /// May be shared by editions of one `Normalisation.Key`.
        let normalised: Normalisation
        var titleForms: [[String]] { normalised.titleForms }
        var parts: TitleParts { normalised.parts }
        var names: [ComparedName] { normalised.names }

        public init(_ edition: EditionMetadata) {
            self.init(edition, normalised: Normalisation(edition))
        }

        /// `normalised` must be made from an edition of the same `Normalisation.Key`.
        init(_ edition: EditionMetadata, normalised: Normalisation) {
            self.edition = edition
            self.normalised = normalised
        }
    }

    /// All a score depends on; a class, so that editions sharing one are scored once.
    final class Normalisation: Sendable {
        let titleForms: [[String]]
        let parts: TitleParts
        let names: [ComparedName]

        struct Key: Hashable {
            var title: String?
            var subtitle: String?
            var authors: [String]?

            init(_ edition: EditionMetadata) {
                (title, subtitle, authors) = (edition.title, edition.subtitle, edition.authors)
            }
        }

        convenience init(_ edition: EditionMetadata) {
            self.init(edition, names: Self.names(of: edition))
        }

        static func names(of edition: EditionMetadata) -> [ComparedName] {
            (edition.authors ?? []).map(ComparedName.init(name:))
        }

        /// `names`: `names(of: edition)`, from a source that keeps them by author.
        init(_ edition: EditionMetadata, names: [ComparedName]) {
            let title = edition.title ?? ""
            var forms = [TextNormalizer.tokens(TextNormalizer.strippingSeries(title))]
            if let subtitle = edition.subtitle, !subtitle.isEmpty {
                forms.append(TextNormalizer.tokens(title + " " + subtitle))
            }
            titleForms = forms + forms.map(Matcher.droppingArticle)
            parts = TitleParts(title: title, subtitle: edition.subtitle)
            self.names = names
        }
    }

    static func droppingArticle(_ tokens: [String]) -> [String] {
        guard tokens.count > 1, let first = tokens.first, ["the", "a", "an"].contains(first) else { return tokens }
        return Array(tokens.dropFirst())
    }

    /// The larger of token overlap (Dice) and edit similarity of the joined text (`philosopher s`).
    /// When the pair cannot beat `exceeding`, the edit distance is skipped and some lower value given.
    static func similarity(_ lhs: [String], _ rhs: [String], exceeding floor: Double = -1) -> Double {
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
        if 1 - Double(abs(left.count - right.count)) / longest <= max(dice, floor) { return dice }
        let distance = EditDistance.levenshtein(left, right)
        let edit = 1 - Double(distance) / Double(max(left.count, right.count))
        return max(dice, edit)
    }

    static let nameSuffixes: Set<String> = ["jr", "sr", "ii", "iii", "iv", "phd", "md", "dr"]

    /// A name as `nameSimilarity` compares it, made once per name instead of once per pair.
    struct ComparedName: Sendable {
        let tokens: [String]
        let sorted: [String]

        init(name: String) {
            self.init(TextNormalizer.nameTokens(name))
        }

        init(_ tokens: [String]) {
            var tokens = tokens
            while tokens.count > 1, let last = tokens.last, Matcher.nameSuffixes.contains(last) { tokens.removeLast() }
            self.tokens = tokens
            sorted = tokens.sorted()
        }
    }

    /// Names: same tokens in any order → 1; same surname with compatible given names or initials
    /// (`J. R. R.` for `John Ronald Reuel`, `Chris` for `Christopher`) → 0.9; a surname alone → 0.85.
    /// Another given name with the same surname (`Brian Herbert` for `Frank Herbert`) is another person.
    static func nameSimilarity(_ left: ComparedName, _ right: ComparedName) -> Double {
        let lhs = left.tokens, rhs = right.tokens
        guard !lhs.isEmpty, !rhs.isEmpty else { return 0 }
        if left.sorted == right.sorted { return 1 }
        if lhs.last == rhs.last {
            let given = Array(lhs.dropLast()), otherGiven = Array(rhs.dropLast())
            if given.isEmpty || otherGiven.isEmpty { return 0.85 }
            if compatibleGivenNames(given, otherGiven) { return 0.9 }
            // A surname alone, possibly of several words (`Le Guin` for `Ursula K. Le Guin`).
            let (short, long) = lhs.count < rhs.count ? (lhs, rhs) : (rhs, lhs)
            if long.suffix(short.count).elementsEqual(short) { return 0.85 }
            return 0.5
        }
        return similarity(left.sorted, right.sorted) * otherSurnameCeiling
    }

    /// The first given names agree: equal, one a prefix of the other (3+ letters), a typo-level
    /// slip, or a run of initials matching the other's first letters.
    static func compatibleGivenNames(_ lhs: [String], _ rhs: [String]) -> Bool {
        let a = lhs[0], b = rhs[0]
        if a == b { return true }
        func initials(_ run: String, of names: [String]) -> Bool {
            run.count <= 3 && run.count <= names.count && zip(run, names).allSatisfy { $0 == $1.first }
        }
        if initials(a, of: rhs) || initials(b, of: lhs) { return true }
        let (short, long) = a.count < b.count ? (a, b) : (b, a)
        if short.count >= 3 && long.hasPrefix(short) { return true }
        return short.count >= 5 && EditDistance.levenshtein(Array(a.unicodeScalars), Array(b.unicodeScalars)) <= 1
    }
}

extension EditionMetadata {
    /// Its ISBN-13, or its ISBN-10 made one, is `isbn`.
    func carries(isbn: String) -> Bool { isbn13 == isbn || isbn10.flatMap(ISBN.canonical13) == isbn }
}

extension MatchCandidate {
    init(_ edition: EditionMetadata, score: Double, reason: String) {
        self.init(
            key: edition.editionKey ?? edition.workKey ?? "", workKey: edition.workKey, title: edition.title ?? "",
            authors: edition.authors ?? [], score: score, reason: reason)
    }
}
