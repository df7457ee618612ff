#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ShelflineCore

/// Counts from building an index, for the report and the benchmark.
public struct CatalogBuildStats: Codable, Sendable, Equatable {
    public var lines = 0
    public var editions = 0
    public var works = 0
    public var authors = 0
    public var redirects = 0
    /// Lines that were not valid JSON or lacked required fields: skipped, never fatal.
    public var skippedLines = 0
    public var seconds = 0.0
    public var indexBytes = 0
    public init() {}
}

/// The catalog's SQLite index: ISBN → edition, and an FTS5 table over titles and author names.
///
/// Built once per set of dump contents (the file name carries their combined content hash), in a
/// temporary file renamed into place when complete, so an interrupted build is never used. Memory
/// stays bounded whatever the dump size: rows stream in batched transactions, secondary indexes
/// and the full-text table are built after the load, SQLite's page cache is capped.
public final class CatalogIndex: @unchecked Sendable {
    /// Bumped when the schema or the parsing of dumps changes, so old indexes are rebuilt.
    static let schemaVersion = 3  // 3: one ISBN rule (978/979 only), editions without authors or work skipped
    public let path: String
    public private(set) var stats: CatalogBuildStats
    /// True when this run built the index (false: reused).
    public let built: Bool
    private let database: SQLiteDatabase
    private let lock = NSLock()
    private let isbnStatement: SQLiteStatement
    private let editionStatement: SQLiteStatement
    private let searchStatement: SQLiteStatement
    private let titleKeyStatement: SQLiteStatement
    private let authorSearchStatement: SQLiteStatement

    /// Opens the index for `dumps` in `cacheDirectory`, building it first if its content changed.
    /// `isCancelled` is polled while building; when it turns true the build stops (temporary file
    /// removed) with `TryLaterError`.
    public static func open(dumps: [String], cacheDirectory: String, log: Logfmt,
                            isCancelled: () -> Bool = { false }) throws -> CatalogIndex {
        try Workspace.makeDirectory(cacheDirectory)
        let hash = try DumpHashes(cacheDirectory: cacheDirectory).combinedHash(of: dumps, schemaVersion: schemaVersion)
        let path = cacheDirectory + "/catalog-\(hash.prefix(16)).sqlite"
        if FileManager.default.fileExists(atPath: path) {
            return try CatalogIndex(path: path, built: false)
        }
        log.event(["stage": "lookup", "event": "catalog-build", "dumps": dumps.count, "index": path])
        let stats = try build(dumps: dumps, into: path, log: log, isCancelled: isCancelled)
        removeStaleIndexes(in: cacheDirectory, keeping: path)
        let index = try CatalogIndex(path: path, built: true)
        index.stats = stats
        log.event(["stage": "lookup", "event": "catalog-built", "editions": stats.editions, "works": stats.works,
                   "authors": stats.authors, "skipped": stats.skippedLines,
                   "seconds": String(format: "%.1f", stats.seconds), "bytes": stats.indexBytes])
        return index
    }

    init(path: String, built: Bool) throws {
        self.path = path
        self.built = built
        database = try SQLiteDatabase(path: path, readOnly: true)
        // The index never changes once renamed into place: keep the shared lock from the first read
        // instead of taking and dropping it (fcntl + fstat) around every query, which was ~20 % of
        // lookup's CPU at 200,000 rows (perf, bench/orchestrator). Readers still share the file.
        try database.execute("PRAGMA locking_mode = EXCLUSIVE")
        isbnStatement = try database.prepare("SELECT edition_id FROM isbns WHERE isbn = ? ORDER BY edition_id LIMIT 1")
        editionStatement = try database.prepare("""
            SELECT e.key, e.work_key, e.title, e.subtitle, e.publishers, e.isbn13, e.isbn10, e.pages, e.publish_date, e.cover,
              (SELECT json_group_array(a.name) FROM json_each(coalesce(e.author_keys,
                  (SELECT w.author_keys FROM works w WHERE w.key = e.work_key LIMIT 1))) j
                JOIN authors a ON a.key = coalesce((SELECT r.location FROM redirects r WHERE r.key = j.value), j.value)),
              (SELECT w.description FROM works w WHERE w.key = e.work_key LIMIT 1)
            FROM editions e WHERE e.id = ?
            """)
        searchStatement = try database.prepare("SELECT rowid FROM search WHERE search MATCH ? ORDER BY rank LIMIT ?")
        // Unranked: an author's editions sharing a title word are few, and bm25 over the
        // contentless table costs more than the match itself.
        authorSearchStatement = try database.prepare("SELECT rowid FROM search WHERE search MATCH ? LIMIT ?")
        titleKeyStatement = try database.prepare("SELECT edition_id FROM title_keys WHERE key = ? LIMIT ?")
        stats = CatalogBuildStats()
        stats.editions = try database.scalarInt("SELECT value FROM meta WHERE name = 'editions'") ?? 0
        stats.skippedLines = try database.scalarInt("SELECT value FROM meta WHERE name = 'skipped'") ?? 0
        stats.indexBytes = Self.fileSize(path)
    }

    // MARK: Queries

    /// The first edition carrying each ISBN-13 (any ISBN-10 in the dump was converted).
    public func editions(isbns: [String]) throws -> [String: EditionMetadata] {
        try lock.withLock {
            var found: [String: EditionMetadata] = [:]
            for isbn in isbns {
                guard let number = Int(isbn) else { continue }
                isbnStatement.bind(1, number)
                defer { isbnStatement.reset() }
                if try isbnStatement.step(), let id = isbnStatement.int(0), let edition = try loadEdition(id) {
                    found[isbn] = edition
                }
            }
            return found
        }
    }

    /// Candidate editions for a title and author, from three queries:
    /// 1. editions whose normalised title equals the query's (an index lookup, however common the words);
    /// 2. with an author, editions by the author's surname sharing any title word (FTS5);
    /// 3. only when (1) found nothing, editions whose title holds all significant words (FTS5, ranked).
    /// (1) and (2) bring every near miss that could compete — same title by others, other books by
    /// the same author — without scanning the long posting lists of common title words.
    public func candidates(title: String, author: String?, limit: Int) throws -> [EditionMetadata] {
        let tokens = TextNormalizer.tokens(TextNormalizer.strippingSeries(title))
        guard !tokens.isEmpty else { return [] }
        let significant = tokens.filter { !TextNormalizer.stopwords.contains($0) }
        let words = (significant.isEmpty ? tokens : significant).map { "\"\($0)\"" }
        var keys = [TextNormalizer.titleKey(title)]
        if let colon = title.firstIndex(of: ":") { keys.append(TextNormalizer.titleKey(String(title[..<colon]))) }
        // The surname: last word of the name in `First Last` order (`Le Guin, Ursula K.` → `guin`),
        // as a token the FTS index holds (not a joined run of initials).
        let surname = author.flatMap { name -> String? in
            let plain = Set(TextNormalizer.tokens(name))
            return TextNormalizer.nameTokens(name).last { $0.count > 1 && plain.contains($0) }
        }
        return try lock.withLock {
            var ids: [Int] = []
            var seen = Set<Int>()
            func collect(_ statement: SQLiteStatement) throws {
                defer { statement.reset() }
                while try statement.step() {
                    if let id = statement.int(0), seen.insert(id).inserted { ids.append(id) }
                }
            }
            for key in keys where !key.isEmpty {
                titleKeyStatement.bind(1, key)
                titleKeyStatement.bind(2, limit * 3)
                try collect(titleKeyStatement)
            }
            let exactFound = !ids.isEmpty
            if let surname {
                authorSearchStatement.bind(1, "authors : \"\(surname)\" AND title : (\(words.joined(separator: " OR ")))")
                authorSearchStatement.bind(2, limit * 3)
                try collect(authorSearchStatement)
            }
            if !exactFound {
                searchStatement.bind(1, "title : (\(words.joined(separator: " AND ")))")
                searchStatement.bind(2, limit)
                try collect(searchStatement)
            }
            return try ids.compactMap { try loadEdition($0) }
        }
    }

    private func loadEdition(_ id: Int) throws -> EditionMetadata? {
        let statement = editionStatement
        statement.bind(1, id)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        var edition = EditionMetadata(source: SourceKind.catalog.rawValue)
        edition.editionKey = statement.text(0)
        edition.workKey = statement.text(1)
        edition.title = statement.text(2)
        edition.subtitle = statement.text(3)
        edition.publishers = statement.text(4).flatMap(Self.decodeStrings)
        edition.isbn13 = statement.text(5)
        edition.isbn10 = statement.text(6)
        edition.pages = statement.int(7)
        edition.publishDate = statement.text(8)
        edition.year = edition.publishDate.flatMap(Self.year)
        edition.coverId = statement.int(9)
        let authors = statement.text(10).flatMap(Self.decodeStrings) ?? []
        edition.authors = authors.isEmpty ? nil : authors
        edition.description = statement.text(11).map { String($0.prefix(2000)) }
        return edition
    }

    static func decodeStrings(_ json: String) -> [String]? {
        let values = try? JSONDecoder().decode([String].self, from: Data(json.utf8))
        return values?.isEmpty == false ? values : nil
    }

    /// The first plausible 4-digit year in a free-text publish date (`March 1965`, `c1965`, `1965-03-01`).
    static func year(_ text: String) -> Int? {
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

    // MARK: Build

    /// Streams the dumps into a new index at `path` (via a temporary file renamed when complete).
    static func build(dumps: [String], into path: String, log: Logfmt, batchSize: Int = 20_000,
                      isCancelled: () -> Bool = { false }) throws -> CatalogBuildStats {
        let started = Date()  // build timing only; never part of any output record
        let temporary = path + ".building-\(getpid())"
        unlink(temporary)
        var stats = CatalogBuildStats()
        do {
            let database = try SQLiteDatabase(path: temporary)
            try database.execute("""
                PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-32768; PRAGMA temp_store=FILE;
                PRAGMA soft_heap_limit=67108864; PRAGMA threads=0;
                PRAGMA page_size=8192;
                CREATE TABLE meta(name TEXT PRIMARY KEY, value);
                CREATE TABLE editions(id INTEGER PRIMARY KEY, key TEXT NOT NULL, work_key TEXT, title TEXT NOT NULL,
                  subtitle TEXT, author_keys TEXT, publishers TEXT, isbn13 TEXT, isbn10 TEXT, pages INTEGER,
                  publish_date TEXT, cover INTEGER);
                CREATE TABLE isbns(isbn INTEGER NOT NULL, edition_id INTEGER NOT NULL);
                CREATE TABLE works(key TEXT NOT NULL, author_keys TEXT, description TEXT);
                CREATE TABLE authors(key TEXT NOT NULL, name TEXT NOT NULL);
                CREATE TABLE redirects(key TEXT NOT NULL, location TEXT NOT NULL);
                CREATE TABLE title_keys(key TEXT NOT NULL, edition_id INTEGER NOT NULL);
                """)
            guard database.hasFTS5() else {
                throw LookupError.database(path: temporary, reason: "the system SQLite lacks FTS5, needed for title search")
            }
            let insertEdition = try database.prepare("""
                INSERT INTO editions(key, work_key, title, subtitle, author_keys, publishers, isbn13, isbn10, pages,
                  publish_date, cover) VALUES (?,?,?,?,?,?,?,?,?,?,?)
                """)
            let insertISBN = try database.prepare("INSERT INTO isbns(isbn, edition_id) VALUES (?, ?)")
            let insertTitleKey = try database.prepare("INSERT INTO title_keys(key, edition_id) VALUES (?, ?)")
            let insertWork = try database.prepare("INSERT INTO works(key, author_keys, description) VALUES (?,?,?)")
            let insertAuthor = try database.prepare("INSERT INTO authors(key, name) VALUES (?,?)")
            let insertRedirect = try database.prepare("INSERT INTO redirects(key, location) VALUES (?,?)")
            let decoder = JSONDecoder()
            let encoder = JSONEncoder()
            func json(_ values: [String]) -> String? {
                values.isEmpty ? nil : String(decoding: (try? encoder.encode(values)) ?? Data(), as: UTF8.self)
            }
            var inBatch = 0
            try database.execute("BEGIN")
            for dump in dumps {
                var reportedBadLines = 0
                try DumpLineReader.forEachLine(path: dump) { line, lineNumber in
                    stats.lines += 1
                    guard !line.isEmpty else { return }
                    let record: CatalogDumpRecord
                    do {
                        record = try CatalogDumpRecord.parse(line, decoder: decoder)
                    } catch let error as CatalogDumpRecord.Malformed {
                        stats.skippedLines += 1
                        if reportedBadLines < 5 {
                            reportedBadLines += 1
                            log.event(["stage": "lookup", "event": "catalog-skip", "file": dump, "line": lineNumber,
                                       "reason": error.reason])
                        }
                        return
                    }
                    switch record {
                    case .edition(let edition):
                        insertEdition.bind(1, edition.key)
                        insertEdition.bind(2, edition.workKey)
                        insertEdition.bind(3, edition.title)
                        insertEdition.bind(4, edition.subtitle)
                        insertEdition.bind(5, json(edition.authorKeys))
                        insertEdition.bind(6, json(edition.publishers))
                        insertEdition.bind(7, edition.isbn13)
                        insertEdition.bind(8, edition.isbn10)
                        insertEdition.bind(9, edition.pages)
                        insertEdition.bind(10, edition.publishDate)
                        insertEdition.bind(11, edition.cover)
                        try insertEdition.run()
                        let editionID = database.lastInsertRowID
                        insertTitleKey.bind(1, TextNormalizer.titleKey(edition.title))
                        insertTitleKey.bind(2, editionID)
                        try insertTitleKey.run()
                        for isbn in edition.isbns {
                            insertISBN.bind(1, Int(isbn))
                            insertISBN.bind(2, editionID)
                            try insertISBN.run()
                        }
                        stats.editions += 1
                    case .work(let work):
                        insertWork.bind(1, work.key)
                        insertWork.bind(2, json(work.authorKeys))
                        insertWork.bind(3, work.description)
                        try insertWork.run()
                        stats.works += 1
                    case .author(let key, let name):
                        insertAuthor.bind(1, key)
                        insertAuthor.bind(2, name)
                        try insertAuthor.run()
                        stats.authors += 1
                    case .redirect(let key, let location):
                        insertRedirect.bind(1, key)
                        insertRedirect.bind(2, location)
                        try insertRedirect.run()
                        stats.redirects += 1
                    case .ignored:
                        return
                    }
                    inBatch += 1
                    if inBatch >= batchSize {
                        try database.execute("COMMIT; BEGIN")
                        inBatch = 0
                        if isCancelled() {
                            throw TryLaterError("import paused: stopped by a signal while building the catalog index; run the import again to resume")
                        }
                    }
                }
            }
            try database.execute("COMMIT")
            // Secondary indexes after the load: one sort each instead of random B-tree inserts.
            try database.execute("""
                CREATE INDEX isbns_isbn ON isbns(isbn);
                CREATE INDEX title_keys_key ON title_keys(key);
                CREATE INDEX works_key ON works(key);
                CREATE INDEX authors_key ON authors(key);
                CREATE INDEX redirects_key ON redirects(key);
                CREATE VIRTUAL TABLE search USING fts5(title, authors, content='', columnsize=0, detail=column,
                  tokenize='unicode61 remove_diacritics 2');
                BEGIN;
                INSERT INTO search(rowid, title, authors)
                  SELECT e.id, e.title || coalesce(' ' || e.subtitle, ''),
                    (SELECT group_concat(a.name, ' ') FROM json_each(coalesce(e.author_keys,
                        (SELECT w.author_keys FROM works w WHERE w.key = e.work_key LIMIT 1))) j
                      JOIN authors a ON a.key = coalesce((SELECT r.location FROM redirects r WHERE r.key = j.value), j.value))
                  FROM editions e;
                INSERT INTO search(search) VALUES ('optimize');
                COMMIT;
                """)
            try database.execute("""
                INSERT INTO meta VALUES ('schema', \(schemaVersion)), ('editions', \(stats.editions)),
                  ('skipped', \(stats.skippedLines)), ('lines', \(stats.lines));
                """)
            database.close()
            guard rename(temporary, path) == 0 else {
                throw FileError.cannotCreate(path: path, reason: "rename: \(systemErrorMessage())")
            }
        } catch {
            unlink(temporary)
            throw error
        }
        stats.seconds = Date().timeIntervalSince(started)
        stats.indexBytes = fileSize(path)
        return stats
    }
}

/// Content hashes of dump files, remembered by path, size and modification time so a multi-GB
/// dump is hashed once, not on every run.
struct DumpHashes {
    let cacheDirectory: String
    private var stampPath: String { cacheDirectory + "/catalog-dump-hashes.json" }

    struct Stamp: Codable { var size: Int; var modified: Double; var hash: String }

    func combinedHash(of dumps: [String], schemaVersion: Int) throws -> String {
        var stamps = (try? readJSONFile([String: Stamp].self, from: stampPath)) ?? [:]
        var hashes: [String] = []
        var changed = false
        for dump in dumps {
            let absolute = URL(fileURLWithPath: dump).standardizedFileURL.path
            let attributes: [FileAttributeKey: Any]
            do {
                attributes = try FileManager.default.attributesOfItem(atPath: dump)
            } catch {
                throw FileError.missingInput(path: dump, reason: "catalog dump not found or not readable")
            }
            let size = (attributes[.size] as? Int) ?? -1
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            if let stamp = stamps[absolute], stamp.size == size, stamp.modified == modified {
                hashes.append(stamp.hash)
            } else {
                let hash = try ContentHash.file(dump)
                stamps[absolute] = Stamp(size: size, modified: modified, hash: hash)
                hashes.append(hash)
                changed = true
            }
        }
        if changed { try? writeJSONFile(stamps, to: stampPath) }
        // Order-independent: the same dumps given in another order are the same catalog.
        return ContentHash.string("schema \(schemaVersion)\n" + hashes.sorted().joined(separator: "\n"))
    }
}
