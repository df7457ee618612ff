import CSQLite
import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// Counts from building an index, for the report and the benchmark.
public struct CatalogBuildStats: Codable, Sendable, Equatable {
    public var lines = 0
    public var editions = 0
    public var works = 0
    public var authors = 0
    public var redirects = 0
    /// Never fatal.
    public var skippedLines = 0
    /// Of `skippedLines`, lines repeating a key (the first one is kept).
    public var duplicateKeys = 0
    public var skippedReasons: [String: Int] = [:]
    public var seconds = 0.0
    public var indexBytes = 0

    mutating func skip(_ reason: String) {
        skippedLines += 1
        skippedReasons[reason, default: 0] += 1
    }
}

/// The catalog's SQLite index, shaped by its queries: integer keys in `WITHOUT ROWID` tables, FTS5
/// over titles and authors. Built once per set of dump contents (hashed into the name) in bounded
/// memory, in a temporary file renamed when complete.
public final class CatalogIndex: @unchecked Sendable {
    /// Bump when the schema or the parsing of dumps changes, so old indexes are rebuilt.
    static let schemaVersion = 5
    public let path: String
    public private(set) var stats: CatalogBuildStats
    /// False: reused.
    public let built: Bool
    private let database: SQLiteDatabase
    private let lock = NSLock()
    private let isbnStatement: SQLiteStatement
    private let editionStatement: SQLiteStatement
    private let workStatement: SQLiteStatement
    private let authorStatement: SQLiteStatement
    private let oddKeyStatement: SQLiteStatement
    private let publisherStatement: SQLiteStatement
    private let descriptions = StoredDescription.Decompressor()
    private let searchStatement: SQLiteStatement
    private let titleKeyStatement: SQLiteStatement
    private let authorSearchStatement: SQLiteStatement
    private let authorPostingsStatement: SQLiteStatement
    private let titleTextStatement: SQLiteStatement
    private let hitStatement: SQLiteStatement
    private let rowMatchStatement: SQLiteStatement
    let searchFilter: CatalogSearchFilter
    /// More than 2 × 5,000 saved no time and cost memory.
    private var editionCache = RecentCache<Int, (edition: EditionMetadata, prepared: Matcher.PreparedEdition?)>(
        generationLimit: 5_000)
    /// Shared by the connections: a cache per connection missed too often.
    private let authorNames: SharedRecentCache<Int, (name: String, compared: Matcher.ComparedName)>
    /// A few hundred lists cover most editions.
    private var publisherLists = RecentCache<Int, [String]>(generationLimit: 1_000)

    /// Builds it first if the dumps changed; a damaged one is set aside and rebuilt.
    public static func open(
        dumps: [String], cacheDirectory: String, log: Logfmt, now: Date = Date(timeIntervalSince1970: 0),
        isCancelled: () -> Bool = { false }
    ) throws -> CatalogIndex {
        try Workspace.makeDirectory(cacheDirectory)
        StaleTemporaryFiles.removeAbandoned(in: cacheDirectory, prefix: "catalog-", marker: ".sqlite.building-")
        let hash = try combinedHash(of: dumps, cacheDirectory: cacheDirectory)
        let path = cacheDirectory + "/catalog-\(hash.prefix(16)).sqlite"
        if FileManager.default.fileExists(atPath: path) {
            let reused = try CacheFiles.opening(path, what: "catalog index", now: now, log: log) { () -> CatalogIndex? in
                FileManager.default.fileExists(atPath: path) ? try CatalogIndex(path: path, built: false) : nil
            }
            if let reused { return reused }
        }
        log.event(["stage": "lookup", "event": "catalog-build", "dumps": dumps.count, "index": path])
        let stats = try build(dumps: dumps, into: path, log: log, isCancelled: isCancelled)
        removeStaleIndexes(in: cacheDirectory, keeping: path)
        let index = try CatalogIndex(path: path, built: true)
        index.stats = stats
        log.event([
            "stage": "lookup", "event": "catalog-built", "editions": stats.editions, "works": stats.works,
            "authors": stats.authors, "skipped": stats.skippedLines, "duplicates": stats.duplicateKeys,
            "seconds": String(format: "%.1f", stats.seconds), "bytes": stats.indexBytes,
        ])
        return index
    }

    /// `sharing`: another connection, whose search filter and author names this one uses too.
    init(path: String, built: Bool, sharing other: CatalogIndex? = nil) throws {
        self.path = path
        self.built = built
        database = try SQLiteDatabase(path: path, readOnly: true)
        // The index never changes: keep the shared lock, not take it (fcntl + fstat) per query.
        try database.execute("PRAGMA locking_mode = EXCLUSIVE")
        // The mapped pages are the shared page cache, without a read() copy each.
        try database.execute("PRAGMA mmap_size = 68719476736")
        isbnStatement = try database.prepare("SELECT edition FROM isbns WHERE isbn = ? LIMIT 1")
        editionStatement = try database.prepare(
            """
            SELECT work, title, subtitle, authors, publishers, isbn13, isbn10, pages, publish_date, cover
            FROM editions WHERE id = ?
            """)
        workStatement = try database.prepare("SELECT authors, description FROM works WHERE id = ?")
        oddKeyStatement = try database.prepare("SELECT key FROM odd_keys WHERE id = ?")
        publisherStatement = try database.prepare("SELECT name FROM publishers WHERE id = ?")
        // One redirect hop, like Open Library.
        authorStatement = try database.prepare(
            "SELECT name FROM authors WHERE id = coalesce((SELECT target FROM redirects WHERE id = ?1), ?1)")
        searchStatement = try database.prepare("SELECT rowid FROM search WHERE search MATCH ? ORDER BY rank LIMIT ?")
        // Unranked: such editions are few, and bm25 costs more than the match itself.
        authorSearchStatement = try database.prepare("SELECT rowid FROM search WHERE search MATCH ? LIMIT ?")
        titleKeyStatement = try database.prepare("SELECT edition FROM title_keys WHERE hash = ? LIMIT ?")
        authorPostingsStatement = try database.prepare("SELECT rowid FROM search WHERE search MATCH ?")
        titleTextStatement = try database.prepare("SELECT title, subtitle FROM editions WHERE id = ?")
        hitStatement = try database.prepare("SELECT work, authors FROM editions WHERE id = ?")
        rowMatchStatement = try database.prepare("SELECT 1 FROM search WHERE search MATCH ? AND rowid = ?")
        searchFilter = try other?.searchFilter ?? CatalogSearchFilter.load(from: database)
        authorNames = other?.authorNames ?? SharedRecentCache(generationLimit: Self.authorsPerGeneration)
        stats = CatalogBuildStats()
        stats.editions = try database.scalarInt("SELECT value FROM meta WHERE name = 'editions'") ?? 0
        stats.skippedLines = try database.scalarInt("SELECT value FROM meta WHERE name = 'skipped'") ?? 0
        stats.duplicateKeys = try database.scalarInt("SELECT value FROM meta WHERE name = 'duplicates'") ?? 0
        let reasons = try database.prepare("SELECT value FROM meta WHERE name = 'skipped_reasons'")
        if try reasons.step(), let json = reasons.text(0),
            let decoded = try? JSONDecoder().decode([String: Int].self, from: Data(json.utf8))
        {
            stats.skippedReasons = decoded
        }
        stats.indexBytes = Self.fileSize(path)
    }

    /// When several editions carry an ISBN, the oldest record (lowest number).
    public func editions(isbns: [String]) throws -> [String: EditionMetadata] {
        try editions(isbns) { isbn in
            guard let number = Int(isbn) else { return nil }
            isbnStatement.bind(1, number)
            defer { isbnStatement.reset() }
            return try isbnStatement.step() ? isbnStatement.int(0) : nil
        }
    }

    /// By `/books/OL1M` or `OL1M`, keyed as asked.
    public func editions(keys: [String]) throws -> [String: EditionMetadata] {
        try editions(keys) { CatalogDumpRecord.KeyKind.edition.number($0.hasPrefix("/") ? $0 : "/books/" + $0) }
    }

    /// Described, keyed as asked; `id` finds each one's edition.
    private func editions(_ asked: [String], id: (String) throws -> Int?) throws -> [String: EditionMetadata] {
        try lock.withLock {
            var found: [String: EditionMetadata] = [:]
            for key in asked {
                if let id = try id(key), let edition = try loadEdition(id) { found[key] = try describing(edition) }
            }
            return found
        }
    }

    /// (1) The same title key; (2) the surname with any title word; (3) if (1) found none, all title
    /// words. (1) and (2) bring every near miss without the long posting lists of common words.
    public func candidates(title: String, author: String?, limit: Int) throws -> [EditionMetadata] {
        try preparedCandidates(title: title, author: author, limit: limit).map { try described($0.edition) }
    }

    /// Without the work's description: only the edition a row is matched to needs it.
    public func preparedCandidates(title: String, author: String?, limit: Int) throws -> [Matcher.PreparedEdition] {
        guard let plan = searchPlan(title: title, terms: SearchTerms(title: title, author: author)) else { return [] }
        return try lock.withLock { try preparing(findingHits(plan, limit: limit)) }
    }

    /// A candidate before its edition is loaded: its authors tell whether it could be accepted.
    public struct SearchHit: Sendable {
        let id: Int
        let names: [Matcher.ComparedName]
    }

    /// Before loading: most hits are the same title by others, and loading them all costs most.
    func searchHits(title: String, terms: SearchTerms, limit: Int) throws -> [SearchHit] {
        // Outside the lock: most rows against a small catalog end here.
        guard let plan = searchPlan(title: title, terms: terms) else { return [] }
        return try lock.withLock { try findingHits(plan, limit: limit) }
    }

    /// In the hits' order (a hit whose row is gone is left out).
    public func prepared(_ hits: [SearchHit]) throws -> [Matcher.PreparedEdition] {
        try lock.withLock { try preparing(hits) }
    }

    private struct SearchPlan {
        var hashes: [Int]
        var surname: String?
        var searched: [String]
        var titleSearch: Bool
    }

    /// Nil when the search filter rules every query out; the cheap tests allocate nothing.
    private func searchPlan(title: String, terms: SearchTerms) -> SearchPlan? {
        let tokens = terms.titleTokens
        guard !tokens.isEmpty else { return nil }
        // Every stopword is at most three bytes.
        func isStopword(_ token: String) -> Bool { token.utf8.count <= 3 && TextNormalizer.stopwords.contains(token) }
        let hasSignificant = tokens.contains { !isStopword($0) }
        func isSearched(_ token: String) -> Bool { !hasSignificant || !isStopword(token) }
        var titleSearch = true
        var anyTitleWord = false
        for token in tokens where isSearched(token) {
            if mayHold(token, .title) { anyTitleWord = true } else { titleSearch = false }
            if anyTitleWord && !titleSearch { break }
        }
        // `titleKey(title)` from the tokens at hand.
        var keyHashes = [Self.titleHash(joining: Matcher.droppingArticle(tokens))]
        if title.utf8.contains(UInt8(ascii: ":")), let colon = TextNormalizer.firstIndex(of: ":", in: title) {
            let key = TextNormalizer.titleKey(String(title[..<colon]))
            if !key.isEmpty { keyHashes.append(Self.titleHash(key)) }
        }
        let hashes = keyHashes.filter(searchFilter.mayContain(titleHash:))
        // The last name word the index holds (`Le Guin, Ursula K.` → `guin`), only with a title word.
        let surname =
            anyTitleWord
            ? terms.nameWords.flatMap { words -> String? in
                let plain = Set(words)
                return TextNormalizer.joiningInitials(words).last { $0.count > 1 && plain.contains($0) }
            }.flatMap { mayHold($0, .authors) ? $0 : nil } : nil
        guard !hashes.isEmpty || surname != nil || titleSearch else { return nil }
        return SearchPlan(hashes: hashes, surname: surname, searched: tokens.filter(isSearched), titleSearch: titleSearch)
    }

    /// The three queries of `candidates`.
    private func findingHits(_ plan: SearchPlan, limit: Int) throws -> [SearchHit] {
        let words = plan.searched.map { "\"\($0)\"" }
        var ids: [Int] = []
        var seen = Set<Int>()
        func collect(_ statement: SQLiteStatement) throws {
            defer { statement.reset() }
            while try statement.step() {
                if let id = statement.int(0), seen.insert(id).inserted { ids.append(id) }
            }
        }
        for hash in plan.hashes {
            titleKeyStatement.bind(1, hash)
            titleKeyStatement.bind(2, limit * 3)
            try collect(titleKeyStatement)
        }
        let exactFound = !ids.isEmpty
        if let surname = plan.surname {
            for id in try authorEditions(surname: surname, words: plan.searched, limit: limit * 3)
            where seen.insert(id).inserted {
                ids.append(id)
            }
        }
        if !exactFound && plan.titleSearch {
            searchStatement.bind(1, "title : (\(words.joined(separator: " AND ")))")
            searchStatement.bind(2, limit)
            try collect(searchStatement)
        }
        return try hits(ids)
    }

    /// Only their authors' names.
    private func hits(_ ids: [Int]) throws -> [SearchHit] {
        var rows: [(id: Int, names: [Matcher.ComparedName]?, authors: Range<Int>)] = []
        var authorIDs: [Int] = []
        for id in ids {
            if let cached = editionCache[id] {
                rows.append((id, cached.prepared?.names ?? Matcher.Normalisation.names(of: cached.edition), 0..<0))
                continue
            }
            hitStatement.bind(1, id)
            defer { hitStatement.reset() }
            guard try hitStatement.step() else { continue }
            let ids = try editionAuthorIDs(own: Self.authorIDs(hitStatement, 1), work: hitStatement.int(0))
            rows.append((id, nil, authorIDs.count..<authorIDs.count + ids.count))
            authorIDs += ids
        }
        let authors = try namedAuthors(authorIDs)
        return rows.map { row in SearchHit(id: row.id, names: row.names ?? authors[row.authors].compactMap { $0?.compared }) }
    }

    /// A work's editions share one normalisation; kept per search (across, it cost more than it saved).
    private func preparing(_ hits: [SearchHit]) throws -> [Matcher.PreparedEdition] {
        var normalisations: [Matcher.Normalisation.Key: Matcher.Normalisation] = [:]
        return try hits.compactMap { hit -> Matcher.PreparedEdition? in
            if let prepared = editionCache[hit.id]?.prepared { return prepared }
            guard let edition = try loadEdition(hit.id) else { return nil }
            let key = Matcher.Normalisation.Key(edition)
            let normalised = normalisations[key] ?? Matcher.Normalisation(edition, names: hit.names)
            normalisations[key] = normalised
            let prepared = Matcher.PreparedEdition(edition, normalised: normalised)
            editionCache.insert((edition, prepared), for: hit.id)
            return prepared
        }
    }

    /// What `authors : "surname" AND title : (w1 OR …)` answers, by testing the titles on the
    /// author's short posting list instead of seeking through the long lists of common words
    /// (most of a lookup in a large catalog). An ASCII title is split as `unicode61` does; a word
    /// not decided alike (not plain, or `and`, which `&` gives) or a prolific surname asks FTS5.
    func authorEditions(surname: String, words: [String], limit: Int) throws -> [Int] {
        let titleQuery = Self.anyWordQuery(words)
        func fullText() throws -> [Int] { try fullTextAuthorEditions(surname: surname, words: words, limit: limit) }
        let wanted = Set(words)
        guard !wanted.contains("and"), words.allSatisfy(Self.isPlainWord) else { return try fullText() }
        authorPostingsStatement.bind(1, "authors : \"\(surname)\"")
        defer { authorPostingsStatement.reset() }
        var found: [Int] = []
        var examined = 0
        while found.count < limit, try authorPostingsStatement.step() {
            guard let id = authorPostingsStatement.int(0) else { continue }
            examined += 1
            if examined > Self.authorScanLimit { return try fullText() }
            if try titleHolds(id, anyOf: wanted, titleQuery: titleQuery) { found.append(id) }
        }
        return found
    }

    /// What `authorEditions` answers like (the tests compare them).
    func fullTextAuthorEditions(surname: String, words: [String], limit: Int) throws -> [Int] {
        authorSearchStatement.bind(1, "authors : \"\(surname)\" AND \(Self.anyWordQuery(words))")
        authorSearchStatement.bind(2, limit)
        defer { authorSearchStatement.reset() }
        var ids: [Int] = []
        while try authorSearchStatement.step() { if let id = authorSearchStatement.int(0) { ids.append(id) } }
        return ids
    }

    static func anyWordQuery(_ words: [String]) -> String {
        "title : (\(words.map { "\"\($0)\"" }.joined(separator: " OR ")))"
    }

    /// The filter decides for a plain word, which FTS5 tokenizes as itself.
    private func mayHold(_ word: String, _ column: CatalogSearchFilter.Column) -> Bool {
        !Self.isPlainWord(word) || searchFilter.mayContain(term: word, column: column)
    }

    /// About 200 bytes each with their matcher form.
    static let authorsPerGeneration = 100_000

    /// Past this many editions of one surname the full-text query is cheaper.
    static let authorScanLimit = 400

    /// A word the ASCII tokenizer and FTS5's agree on.
    static func isPlainWord(_ word: String) -> Bool {
        !word.isEmpty && word.utf8.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) }
    }

    private func titleHolds(_ id: Int, anyOf words: Set<String>, titleQuery: String) throws -> Bool {
        let title: String?, subtitle: String?
        if let cached = editionCache[id]?.edition {
            (title, subtitle) = (cached.title, cached.subtitle)
        } else {
            titleTextStatement.bind(1, id)
            defer { titleTextStatement.reset() }
            guard try titleTextStatement.step() else { return false }
            (title, subtitle) = (titleTextStatement.text(0), titleTextStatement.text(1))
        }
        guard let title else { return false }  // not in the full-text table
        let text = subtitle.map { title + " " + $0 } ?? title
        guard text.utf8.allSatisfy({ $0 < 0x80 }) else {
            rowMatchStatement.bind(1, titleQuery)
            rowMatchStatement.bind(2, id)
            defer { rowMatchStatement.reset() }
            return try rowMatchStatement.step()
        }
        return TextNormalizer.tokens(text).contains(where: words.contains)
    }

    /// A quarter of the text's size; a collision only adds a candidate scored on its real title.
    static func titleHash(_ key: String) -> Int {
        Int(bitPattern: UInt(fnv1a(key.utf8)))
    }

    /// `titleHash(words.joined(separator: " "))`, without the joined string.
    static func titleHash(joining words: [String]) -> Int {
        var hash = fnv1aOffsetBasis
        for (position, word) in words.enumerated() {
            if position > 0 { hash = fnv1a(CollectionOfOne(UInt8(ascii: " ")), continuing: hash) }
            hash = fnv1a(word.utf8, continuing: hash)
        }
        return Int(bitPattern: UInt(hash))
    }

    static let fnv1aOffsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325

    /// Stable across runs and machines (Swift's `Hasher` is seeded per process).
    static func fnv1a(_ bytes: some Sequence<UInt8>, continuing start: UInt64 = fnv1aOffsetBasis) -> UInt64 {
        var hash = start
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// With its work's description, as a row is given it.
    public func described(_ edition: EditionMetadata) throws -> EditionMetadata {
        try lock.withLock { try describing(edition) }
    }

    private func describing(_ edition: EditionMetadata) throws -> EditionMetadata {
        guard edition.description == nil, let work = edition.workKey.flatMap(CatalogDumpRecord.KeyKind.work.number) else {
            return edition
        }
        var described = edition
        workStatement.bind(1, work)
        defer { workStatement.reset() }
        if try workStatement.step() { described.description = description(workStatement) }
        return described
    }

    private func description(_ statement: SQLiteStatement) -> String? {
        statement.isBlob(1) ? statement.withBlob(1, descriptions.inflate) : statement.text(1)
    }

    /// Without its work's description, unless the work's key has no number.
    private func loadEdition(_ id: Int) throws -> EditionMetadata? {
        if let cached = editionCache[id] { return cached.edition }
        let statement = editionStatement
        statement.bind(1, id)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        var edition = EditionMetadata(source: CatalogSource.sourceName)
        let work = statement.int(0)
        edition.editionKey = try key(id, .edition)
        edition.workKey = try work.flatMap { try key($0, .work) }
        edition.title = statement.text(1)
        edition.subtitle = statement.text(2)
        let authorIDs = try editionAuthorIDs(own: Self.authorIDs(statement, 3), work: work)
        edition.publishers = try storedPublishers(statement, 4)
        edition.isbn13 = statement.int(5).map { String($0) }
        edition.isbn10 = statement.text(6)
        edition.pages = statement.int(7)
        edition.publishDate = statement.text(8)
        edition.year = edition.publishDate.flatMap(Self.year)
        edition.coverId = statement.int(9)
        if let work, work < 0 {
            workStatement.bind(1, work)
            defer { workStatement.reset() }
            if try workStatement.step() { edition.description = description(workStatement) }
        }
        let authors = try namedAuthors(authorIDs).compactMap { $0?.name }
        edition.authors = authors.isEmpty ? nil : authors
        editionCache.insert((edition, prepared: nil), for: id)
        return edition
    }

    /// In the ids' order; the shared cache is asked once for all, not a lock per name.
    private func namedAuthors(_ ids: [Int]) throws -> [(name: String, compared: Matcher.ComparedName)?] {
        var authors = authorNames.values(for: ids)
        var found: [(Int, (name: String, compared: Matcher.ComparedName))] = []
        for (position, id) in ids.enumerated() where authors[position] == nil {
            authors[position] = try storedAuthor(id)
            if let author = authors[position] { found.append((id, author)) }
        }
        authorNames.insert(found)
        return authors
    }

    private func storedAuthor(_ id: Int) throws -> (name: String, compared: Matcher.ComparedName)? {
        authorStatement.bind(1, id)
        defer { authorStatement.reset() }
        guard try authorStatement.step(), let name = authorStatement.text(0) else { return nil }
        return (name, Matcher.ComparedName(name: name))
    }

    /// Its own, else its work's: the authors-first verdict needs a hit's to be its edition's.
    private func editionAuthorIDs(own: [Int], work: Int?) throws -> [Int] {
        guard own.isEmpty, let work else { return own }
        workStatement.bind(1, work)
        defer { workStatement.reset() }
        return try workStatement.step() ? workStatement.text(0).map(Self.decodeIDs) ?? [] : []
    }

    /// As `bindIDs` stores them.
    private static func authorIDs(_ statement: SQLiteStatement, _ column: Int32) -> [Int] {
        statement.isInteger(column) ? [statement.int(column)!] : statement.text(column).map(decodeIDs) ?? []
    }

    /// The list in its row, or, for an id, in `publishers`.
    private func storedPublishers(_ statement: SQLiteStatement, _ column: Int32) throws -> [String]? {
        func list(_ text: String?) -> [String]? {
            let values = text?.split(separator: Self.separator, omittingEmptySubsequences: false).map(String.init)
            return values?.isEmpty == false ? values : nil
        }
        guard statement.isInteger(column) else { return list(statement.text(column)) }
        let id = statement.int(column) ?? 0
        if let cached = publisherLists[id] { return cached }
        publisherStatement.bind(1, id)
        defer { publisherStatement.reset() }
        guard try publisherStatement.step(), let publishers = list(publisherStatement.text(0)) else { return nil }
        publisherLists.insert(publishers, for: id)
        return publishers
    }

    private func key(_ id: Int, _ kind: CatalogDumpRecord.KeyKind) throws -> String? {
        guard id < 0 else { return kind.key(id) }
        oddKeyStatement.bind(1, id)
        defer { oddKeyStatement.reset() }
        return try oddKeyStatement.step() ? oddKeyStatement.text(0) : nil
    }

    /// Separates a list's values in one column; within a value it becomes a space.
    static let separator: Character = "\u{1F}"

    static func encodeList(_ values: [String]) -> String? {
        guard let first = values.first else { return nil }
        func clean(_ value: String) -> String {
            value.utf8.contains(0x1F) ? String(value.map { $0 == separator ? " " : $0 }) : value
        }
        if values.count == 1 { return clean(first) }
        return values.map(clean).joined(separator: String(separator))
    }

    /// One id as an INTEGER (3 bytes, not 6 of text), several as text; both read back as text.
    static func bindIDs(_ statement: SQLiteStatement, _ index: Int32, _ ids: [Int]) {
        guard let first = ids.first else { return statement.bind(index, nil as Int?) }
        guard ids.count > 1 else { return statement.bind(index, first) }
        var text = String(first)
        for id in ids.dropFirst() {
            text += " "
            text += String(id)
        }
        statement.bind(index, text)
    }

    /// As an INTEGER when exactly one's decimal form (`1965`: 2 bytes instead of 5); reads back alike.
    static func bindCompact(_ statement: SQLiteStatement, _ index: Int32, _ text: String?) {
        if let text, text.utf8.count <= 18, let number = Int(text), String(number) == text {
            statement.bind(index, number)
        } else {
            statement.bind(index, text)
        }
    }

    static func decodeIDs(_ text: String) -> [Int] {
        text.split(separator: " ").compactMap { Int($0) }
    }

    /// The first plausible 4-digit year in a free-text publish date (`March 1965`, `c1965`, `1965-03-01`).
    static func year(_ text: String) -> Int? {
        // Nearly every date is ASCII: the same scan over bytes is cheaper.
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            var value = 0, count = 0
            for byte in text.utf8 {
                if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                    value = value &* 10 &+ Int(byte - UInt8(ascii: "0"))
                    count += 1
                } else {
                    if count == 4, (1400...2100).contains(value) { return value }
                    (value, count) = (0, 0)
                }
            }
            return count == 4 && (1400...2100).contains(value) ? value : nil
        }
        var digits = ""
        for character in text + " " {
            if character.isASCII && character.isNumber {
                digits.append(character)
            } else {
                if digits.count == 4, let year = Int(digits), (1400...2100).contains(year) { return year }
                digits = ""
            }
        }
        return nil
    }

    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    static func removeStaleIndexes(in directory: String, keeping path: String) {
        let keep = (path as NSString).lastPathComponent
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        where name.hasPrefix("catalog-") && name.hasSuffix(".sqlite") && name != keep {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)
        }
    }
}
