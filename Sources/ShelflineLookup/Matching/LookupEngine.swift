import Foundation
import ShelflineCore

/// One record's question to the sources.
public struct RecordQuery: Sendable {
    public var query: LookupQuery
    public var identifiers: [String: String] = [:]
    /// An answer to its identifiers is taken as it is; `query.title` is empty.
    public var titleIsPlaceholder = false

    func id(for source: any MetadataSource) -> String? {
        guard !identifiers.isEmpty else { return nil }
        return source.identifierSchemes.lazy.compactMap { identifiers[$0] }.first
    }
}

// In an extension, so that the memberwise initializer stays.
extension RecordQuery {
    public init(record: BookRecord) {
        query = LookupQuery(record: record)
        query.isbn = record.isbn13 ?? record.isbn10.flatMap(ISBN.canonical13)
        identifiers = record.identifiers ?? [:]
        titleIsPlaceholder = record.titleIsPlaceholder == true
        if titleIsPlaceholder { query.title = "" }
    }
}

/// One record's answer: always a `MatchResult`, metadata when matched.
public struct LookupOutcome: Sendable, Equatable {
    public var match: MatchResult
    public var metadata: EditionMetadata?
    /// A source could not answer (not: said no): a later run of the same export asks again.
    public var askAgain = false
}

/// Resolves records: own ids, then ISBN in every source, then title/author search, then the verdict.
public struct LookupEngine: Sendable {
    let sources: [any MetadataSource]
    let cache: LookupCache?
    let matcher: Matcher
    let searchLimit: Int
    let now: @Sendable () -> Date
    /// Shared by the copies (the stage hands the engine to the task that resolves).
    let cacheHitCount = LockedValue(0)

    public var cacheHits: Int { cacheHitCount.value }

    /// The review reason of an ISBN hit whose edition contradicts the row's title and authors.
    public static let isbnTitleConflict = "isbnTitleConflict"

    /// `finished` is called with each record index as soon as its outcome is known.
    public func resolve(_ queries: [RecordQuery], finished: @Sendable (Int) -> Void = { _ in }) async throws -> [LookupOutcome] {
        var outcomes = [LookupOutcome?](repeating: nil, count: queries.count)
        var failures = [[SourceFailure]](repeating: [], count: queries.count)
        var reviews = [[MatchCandidate]](repeating: [], count: queries.count)
        var ruledOut = [[MatchCandidate]](repeating: [], count: queries.count)
        // An ISBN a source files under another book goes to review unless a later source finds
        // the row's book; earlier sources and that one are not searched (`searchFrom`).
        var conflicts = [LookupOutcome?](repeating: nil, count: queries.count)
        var searchFrom = [Int](repeating: 0, count: queries.count)
        func settle(_ index: Int) -> LookupOutcome {
            conflicts[index]
                ?? verdict(queries[index], reviews: reviews[index], ruledOut: ruledOut[index], failures: failures[index])
        }

        // A source's own id names its book. A row with a title takes the answer only when the
        // matcher accepts it (a wrong id attaches no wrong book); one without has no other way.
        for source in sources where !source.identifierSchemes.isEmpty {
            let asked = queries.indices.compactMap { index in
                outcomes[index] == nil ? queries[index].id(for: source).map { (index, $0) } : nil
            }
            guard !asked.isEmpty else { continue }
            for (index, edition) in try await keyedAnswers(
                source, asked, kind: "id", batchSize: source.idBatchSize, failures: &failures,
                fetch: { try await source.editions(ids: $0) })
            where queries[index].titleIsPlaceholder || accepts(queries[index].query, edition) {
                outcomes[index] = Self.matched(edition, by: source, .matchedByIsbn)
                finished(index)
            }
        }

        // ISBN in every source first: an identifier match anywhere beats a search match.
        for (position, source) in sources.enumerated() {
            let asked = queries.indices.compactMap { index in
                outcomes[index] == nil ? queries[index].query.isbn.map { (index, $0) } : nil
            }
            guard !asked.isEmpty else { break }
            for (index, edition) in try await keyedAnswers(
                source, asked, kind: "isbn", batchSize: source.isbnBatchSize, failures: &failures,
                fetch: { try await source.editions(isbns: $0) })
            {
                guard matcher.isbnConflict(queries[index].query, edition) else {
                    outcomes[index] = Self.matched(edition, by: source, .matchedByIsbn)
                    finished(index)
                    continue
                }
                // Spreadsheet damage or a reused ISBN: a person decides.
                let candidate = MatchCandidate(
                    edition, score: matcher.score(queries[index].query, edition).combined, reason: Self.isbnTitleConflict)
                conflicts[index] =
                    conflicts[index]
                    ?? LookupOutcome(
                        match: MatchResult(
                            status: .needsReview, candidates: [candidate], reason: Self.isbnTitleConflict, source: source.name),
                        metadata: nil)
                searchFrom[index] = position + 1
            }
        }

        // Then title/author search, source by source, until one accepts; terms made once per row.
        var searchTerms = [(key: String, terms: SearchTerms)?](repeating: nil, count: queries.count)
        for (position, source) in sources.enumerated() {
            let isLast = position == sources.count - 1
            let pending = queries.indices.filter {
                outcomes[$0] == nil && !queries[$0].query.title.isEmpty && searchFrom[$0] <= position
            }
            guard !pending.isEmpty else { continue }
            if let failure = unaskedFailure(source) {
                for index in pending {
                    failures[index].append(failure)
                    guard isLast else { continue }
                    outcomes[index] = settle(index)
                    finished(index)
                }
                continue
            }
            var groups: [String: [Int]] = [:]
            var order: [String] = []
            for index in pending {
                if searchTerms[index] == nil {
                    let terms = SearchTerms(title: queries[index].query.title, author: queries[index].query.authors.first)
                    searchTerms[index] = (terms.queryKey, terms)
                }
                let key = searchTerms[index]!.key
                let known = groups.count
                groups[key, default: []].append(index)
                if groups.count > known { order.append(key) }
            }
            let members = groups
            try await forEachSearch(
                source, keys: order,
                representative: { key in
                    let first = groups[key]![0]
                    return (queries[first].query, searchTerms[first]!.terms)
                },
                decide: { key, verdict in try members[key]!.map { try verdict(queries[$0].query) } }
            ) { key, result in
                for (member, index) in groups[key]!.enumerated() {
                    switch result {
                    case .failure(let failure):
                        failures[index].append(failure)
                    case .success(let decisions):
                        switch decisions[member] {
                        case .accept(let edition, _):
                            outcomes[index] = Self.matched(edition, by: source, .matchedBySearch)
                        case .review(let candidates):
                            reviews[index].append(contentsOf: candidates)
                        case .ruledOut(let candidates):
                            ruledOut[index].append(contentsOf: candidates)
                        case .none:
                            break
                        }
                    }
                    if isLast || outcomes[index] != nil {
                        if outcomes[index] == nil { outcomes[index] = settle(index) }
                        finished(index)
                    }
                }
            }
        }

        return queries.indices.map { index in
            if let outcome = outcomes[index] { return outcome }
            let outcome = settle(index)
            finished(index)
            return outcome
        }
    }

    /// `standingFailure` when nothing of `source` is cached either: rows settle at once.
    private func unaskedFailure(_ source: any MetadataSource) -> SourceFailure? {
        guard let failure = source.standingFailure else { return nil }
        if source.isRemote, let cache, cache.holdsAnswers(from: source.name) { return nil }
        return failure
    }

    /// For a record no source matched: ruled-out candidates leave it not enriched (kept with their
    /// reasons) unless some source left a real question.
    private func verdict(
        _ query: RecordQuery, reviews: [MatchCandidate], ruledOut: [MatchCandidate],
        failures: [SourceFailure]
    ) -> LookupOutcome {
        func best(_ candidates: [MatchCandidate]) -> [MatchCandidate] {
            var seen = Set<String>()
            return Array(
                candidates.sorted { $0.score > $1.score }.filter { seen.insert($0.key).inserted }.prefix(matcher.maxCandidates))
        }
        if !reviews.isEmpty {
            return LookupOutcome(match: MatchResult(status: .needsReview, candidates: best(reviews)), metadata: nil)
        }
        if !ruledOut.isEmpty, failures.isEmpty {
            return LookupOutcome(
                match: MatchResult(
                    status: .notEnriched, candidates: best(ruledOut),
                    reason: "every candidate is another book"), metadata: nil)
        }
        let reason: String
        if let failure = failures.first(where: { if case .unavailable = $0 { true } else { false } }) ?? failures.first {
            return LookupOutcome(
                match: MatchResult(status: .notEnriched, reason: failure.recordReason), metadata: nil, askAgain: true)
        } else if query.titleIsPlaceholder {
            reason = "no source knows its key"
        } else if query.query.isbn == nil && query.query.title.isEmpty {
            reason = "no ISBN and no title to search for"
        } else {
            reason = "no candidate"
        }
        return LookupOutcome(match: MatchResult(status: .notEnriched, reason: reason), metadata: nil)
    }

    /// `matchedByIsbn` also for a match by the source's own id.
    private static func matched(_ edition: EditionMetadata, by source: any MetadataSource, _ status: MatchStatus) -> LookupOutcome
    {
        LookupOutcome(
            match: MatchResult(status: status, editionKey: edition.editionKey, workKey: edition.workKey, source: source.name),
            metadata: edition)
    }

    private func accepts(_ query: LookupQuery, _ edition: EditionMetadata) -> Bool {
        if case .accept = matcher.decide(query, candidates: [edition]) { return true }
        return false
    }

    /// The rows `source` answered, from the cache or `fetch` in batches; a failure is not cached.
    private func keyedAnswers(
        _ source: any MetadataSource, _ asked: [(Int, String)], kind: String, batchSize: Int,
        failures: inout [[SourceFailure]], fetch: @escaping @Sendable ([String]) async throws -> [String: EditionMetadata]
    ) async throws -> [(index: Int, edition: EditionMetadata)] {
        if let failure = unaskedFailure(source) {
            for (index, _) in asked { failures[index].append(failure) }
            return []
        }
        var seen = Set<String>()
        let keys = asked.map(\.1).filter { seen.insert($0).inserted }
        var (found, misses) = try cached(source, kind: kind, keys: keys)
        var answers = found.compactMapValues { $0.flatMap { try? JSONDecoder().decode(EditionMetadata.self, from: $0) } }
        var failed: [String: SourceFailure] = [:]
        if !misses.isEmpty, let failure = source.standingFailure {
            for key in misses { failed[key] = failure }
            misses = []
        }
        let size = max(1, batchSize)
        let batches = stride(from: 0, to: misses.count, by: size).map { Array(misses[$0..<min($0 + size, misses.count)]) }
        let cache = source.isRemote ? self.cache : nil
        let now = self.now
        try await withThrowingTaskGroup(of: ([String], Result<[String: EditionMetadata], SourceFailure>).self) { group in
            for batch in batches {
                group.addTask {
                    do {
                        let found = try await fetch(batch)
                        if let cache {
                            let encoder = JSONEncoder.shelfline
                            try cache.store(
                                source: source.name,
                                batch.map { key in
                                    (key: "\(kind):\(key)", payload: found[key].flatMap { try? encoder.encode($0) })
                                }, now: now())
                        }
                        return (batch, .success(found))
                    } catch let failure as SourceFailure {
                        return (batch, .failure(failure))
                    }
                }
            }
            for try await (batch, result) in group {
                switch result {
                case .success(let found): answers.merge(found) { first, _ in first }
                case .failure(let failure): for key in batch { failed[key] = failure }
                }
            }
        }
        return asked.compactMap { index, key in
            if let failure = failed[key] { failures[index].append(failure) }
            return answers[key].map { (index, $0) }
        }
    }

    /// Runs each key's search and `decide` (given the matcher's verdict for one query), then
    /// `decided` on this task, one key at a time. A remote source's searches all start at once (its
    /// client paces them); a local one's run on a task per connection, verdicts included.
    private func forEachSearch(
        _ source: any MetadataSource, keys: [String], representative: (String) -> (LookupQuery, SearchTerms),
        decide: @escaping @Sendable (String, (LookupQuery) throws -> MatchDecision) throws -> [MatchDecision],
        _ decided: (String, Result<[MatchDecision], SourceFailure>) throws -> Void
    ) async throws {
        let matcher = self.matcher
        let found = try cached(source, kind: "search", keys: keys).found
        var misses: [(String, LookupQuery, SearchTerms)] = []
        for key in keys {
            guard let payload = found[key] else {
                let (query, terms) = representative(key)
                misses.append((key, query, terms))
                continue
            }
            let candidates = payload.flatMap { try? JSONDecoder().decode([EditionMetadata].self, from: $0) } ?? []
            let prepared = candidates.map(Matcher.PreparedEdition.init)
            try decided(key, .success(try decide(key) { matcher.decide($0, prepared: prepared) }))
        }
        guard !misses.isEmpty else { return }
        if let failure = source.standingFailure {
            for (key, _, _) in misses { try decided(key, .failure(failure)) }
            return
        }
        let cache = source.isRemote ? self.cache : nil
        let limit = searchLimit
        let now = self.now
        @Sendable func search(_ key: String, _ query: LookupQuery, _ terms: SearchTerms) async throws
            -> Result<[MatchDecision], SourceFailure>
        {
            try Task.checkCancellation()
            do {
                if let catalog = source as? CatalogSource {
                    let hits = try await catalog.searchHits(title: query.title, terms: terms, limit: limit)
                    let decisions = try decide(key) { try matcher.decide($0, hits: hits, names: \.names, load: catalog.prepared) }
                    return .success(try await catalog.described(decisions))
                }
                let candidates = try await source.candidates(title: query.title, author: query.authors.first, limit: limit)
                if let cache {
                    let payload = candidates.isEmpty ? nil : try? JSONEncoder.shelfline.encode(candidates)
                    try cache.store(source: source.name, [(key: "search:\(key)", payload: payload)], now: now())
                }
                let prepared = candidates.map(Matcher.PreparedEdition.init)
                return .success(try decide(key) { matcher.decide($0, prepared: prepared) })
            } catch let failure as SourceFailure {
                return .failure(failure)
            }
        }
        let width = source.isRemote ? misses.count : (source as? CatalogSource)?.searchConcurrency ?? 1
        guard width > 1, misses.count > 1 else {
            for (key, query, terms) in misses { try decided(key, try await search(key, query, terms)) }
            return
        }
        try await withThrowingTaskGroup(of: (String, Result<[MatchDecision], SourceFailure>).self) { group in
            var next = 0
            func start() {
                let (key, query, terms) = misses[next]
                next += 1
                group.addTask { (key, try await search(key, query, terms)) }
            }
            while next < min(width, misses.count) { start() }
            for try await (key, result) in group {
                if next < misses.count { start() }
                try decided(key, result)
            }
        }
    }

    /// The answers the cache holds for a remote source (a nil payload: a negative one), counted as
    /// hits, and the keys it does not hold.
    private func cached(_ source: any MetadataSource, kind: String, keys: [String]) throws -> (
        found: [String: Data?], misses: [String]
    ) {
        guard source.isRemote, let cache else { return ([:], keys) }
        let entries = try cache.lookup(source: source.name, keys: keys.map { "\(kind):\($0)" }, now: now())
        var found: [String: Data?] = [:]
        var misses: [String] = []
        for key in keys {
            if let entry = entries["\(kind):\(key)"] { found.updateValue(entry.payload, forKey: key) } else { misses.append(key) }
        }
        cacheHitCount.update { $0 += found.count }
        return (found, misses)
    }
}

/// The words of a row's title/author query, made once for its search key and the catalog's search.
struct SearchTerms: Sendable {
    let titleTokens: [String]
    let nameWords: [String]?

    init(title: String, author: String?) {
        titleTokens = TextNormalizer.tokens(TextNormalizer.strippingSeries(title))
        nameWords = author.map(TextNormalizer.nameWords)
    }

    /// `TextNormalizer.queryKey(title:author:)`, from these words.
    var queryKey: String {
        // One byte buffer: cheaper than `joined` and `+`, or a `String` grown word by word.
        var key: [UInt8] = []
        key.reserveCapacity(
            titleTokens.reduce(2) { $0 + $1.utf8.count + 1 } + (nameWords?.reduce(0) { $0 + $1.utf8.count + 1 } ?? 0))
        func append(_ words: [String]) {
            for (position, word) in words.enumerated() {
                if position > 0 { key.append(UInt8(ascii: " ")) }
                key.append(contentsOf: word.utf8)
            }
        }
        append(titleTokens)
        key.append(UInt8(ascii: "|"))
        if let nameWords { append(TextNormalizer.joiningInitials(nameWords)) }
        return String(decoding: key, as: UTF8.self)
    }
}
