import CSQLite
import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

extension CatalogIndex {
    /// Streams the dumps into a temporary file renamed to `path` when complete.
    static func build(
        dumps: [String], into path: String, log: Logfmt, batchSize: Int = 20_000,
        isCancelled: () -> Bool = { false }
    ) throws -> CatalogBuildStats {
        let started = Date()  // build timing only; never part of any output record
        let temporary = path + ".building-\(getpid())"
        unlink(temporary)
        var stats = CatalogBuildStats()
        let paused = "import paused: stopped by a signal while building the catalog index; run the import again to resume"
        do {
            let database = try SQLiteDatabase(path: temporary)
            // SECURE_DELETE zeroes every freed page: nothing to hide in a file no one has opened yet.
            try database.execute(
                """
                PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-32768; PRAGMA temp_store=FILE;
                PRAGMA soft_heap_limit=67108864; PRAGMA threads=0;
                PRAGMA page_size=8192; PRAGMA locking_mode=EXCLUSIVE; PRAGMA secure_delete=OFF;
                CREATE TABLE meta(name TEXT PRIMARY KEY, value);
                -- Columns without a type (no affinity) keep an INTEGER or a TEXT as bound (`bindIDs`,
                -- `bindCompact`, `PublisherNames`); a description is a TEXT or a BLOB (`StoredDescription`).
                CREATE TABLE editions(id INTEGER PRIMARY KEY, work INTEGER, title TEXT NOT NULL, subtitle TEXT,
                  authors, publishers, isbn13 INTEGER, isbn10 TEXT, pages INTEGER, publish_date, cover INTEGER);
                CREATE TABLE publishers(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE works(id INTEGER PRIMARY KEY, authors, description);
                CREATE TABLE authors(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                CREATE TABLE redirects(id INTEGER PRIMARY KEY, target INTEGER NOT NULL);
                CREATE TABLE odd_keys(id INTEGER PRIMARY KEY, key TEXT NOT NULL);
                CREATE TEMP TABLE isbn_stage(isbn INTEGER NOT NULL, edition INTEGER NOT NULL);
                CREATE TEMP TABLE title_stage(hash INTEGER NOT NULL, edition INTEGER NOT NULL);
                """)
            guard database.hasFTS5() else {
                throw LookupError.database(path: temporary, reason: "the system SQLite lacks FTS5, needed for title search")
            }
            // The primary key ignores a duplicate (the first wins: its ISBN and title rows are in,
            // and no key is held in memory); `changes` tells.
            let insertEdition = try database.prepare(
                """
                INSERT OR IGNORE INTO editions(id, work, title, subtitle, authors, publishers, isbn13, isbn10, pages,
                  publish_date, cover) VALUES (?,?,?,?,?,?,?,?,?,?,?)
                """)
            var publisherNames = try PublisherNames(database)
            let insertISBN = try database.prepare("INSERT INTO isbn_stage(isbn, edition) VALUES (?, ?)")
            let insertTitleKey = try database.prepare("INSERT INTO title_stage(hash, edition) VALUES (?, ?)")
            let insertWork = try database.prepare("INSERT OR IGNORE INTO works(id, authors, description) VALUES (?,?,?)")
            let insertAuthor = try database.prepare("INSERT OR IGNORE INTO authors(id, name) VALUES (?,?)")
            let insertRedirect = try database.prepare("INSERT OR IGNORE INTO redirects(id, target) VALUES (?,?)")
            let insertOddKey = try database.prepare("INSERT OR IGNORE INTO odd_keys(id, key) VALUES (?,?)")
            func store(_ oddKey: CatalogDumpRecord.OddKey) throws {
                insertOddKey.bind(1, oddKey.id)
                insertOddKey.bind(2, oddKey.key)
                try insertOddKey.run()
            }
            let duplicate = "duplicate key (the first line with this key is kept)"
            var inBatch = 0
            try database.execute("BEGIN")
            for dump in dumps {
                var reportedBadLines = 0
                // Parsed on two other threads while this one writes the previous batches.
                try ParsedDumpReader.forEachBatch(path: dump) { batch in
                    for line in batch {
                        stats.lines += 1
                        guard let parsed = line.record else { continue }
                        func skip(_ reason: String) {
                            stats.skip(reason)
                            if reportedBadLines < 5 {
                                reportedBadLines += 1
                                log.event([
                                    "stage": "lookup", "event": "catalog-skip", "file": dump, "line": line.number,
                                    "reason": reason,
                                ])
                            }
                        }
                        /// False (counted, skipped) when an earlier line had the key.
                        func insertedFirst(_ statement: SQLiteStatement) throws -> Bool {
                            try statement.run()
                            guard database.changes == 0 else { return true }
                            stats.duplicateKeys += 1
                            skip(duplicate)
                            return false
                        }
                        let record: CatalogDumpRecord
                        switch parsed {
                        case .success(let value): record = value
                        case .failure(let error): skip(error.reason); continue
                        }
                        switch record {
                        case .edition(let edition):
                            insertEdition.bind(1, edition.id)
                            insertEdition.bind(2, edition.work)
                            insertEdition.bind(3, edition.title)
                            insertEdition.bind(4, edition.subtitle)
                            bindIDs(insertEdition, 5, edition.authors)
                            try publisherNames.bind(edition.publishers, to: insertEdition, at: 6)
                            insertEdition.bind(7, edition.isbn13.flatMap { Int($0) })
                            insertEdition.bind(8, edition.isbn10)
                            insertEdition.bind(9, edition.pages)
                            bindCompact(insertEdition, 10, edition.publishDate)
                            insertEdition.bind(11, edition.cover)
                            guard try insertedFirst(insertEdition) else { continue }
                            insertTitleKey.bind(1, edition.titleHash)
                            insertTitleKey.bind(2, edition.id)
                            try insertTitleKey.run()
                            for oddKey in edition.oddKeys { try store(oddKey) }
                            for isbn in edition.isbns {
                                insertISBN.bind(1, isbn)
                                insertISBN.bind(2, edition.id)
                                try insertISBN.run()
                            }
                            stats.editions += 1
                        case .work(let work):
                            insertWork.bind(1, work.id)
                            bindIDs(insertWork, 2, work.authors)
                            insertWork.bind(3, work.description)
                            guard try insertedFirst(insertWork) else { continue }
                            if let oddKey = work.oddKey { try store(oddKey) }
                            stats.works += 1
                        case .author(let id, let name):
                            insertAuthor.bind(1, id)
                            insertAuthor.bind(2, name)
                            guard try insertedFirst(insertAuthor) else { continue }
                            stats.authors += 1
                        case .authorRedirect(let id, let target):
                            insertRedirect.bind(1, id)
                            insertRedirect.bind(2, target)
                            guard try insertedFirst(insertRedirect) else { continue }
                            stats.redirects += 1
                        case .ignored:
                            continue
                        }
                        inBatch += 1
                        if inBatch >= batchSize {
                            try database.execute("COMMIT; BEGIN")
                            inBatch = 0
                            if isCancelled() { throw TryLaterError(paused) }
                        }
                    }
                }
            }
            try database.execute("COMMIT")
            log.event([
                "stage": "lookup", "event": "catalog-loaded", "lines": stats.lines,
                "seconds": String(format: "%.1f", Date().timeIntervalSince(started)),
            ])
            try withoutActuallyEscaping(isCancelled) { isCancelled in
                try finishIndex(database, isCancelled: isCancelled, paused: paused) { phase in
                    log.event([
                        "stage": "lookup", "event": "catalog-indexed", "phase": phase,
                        "seconds": String(format: "%.1f", Date().timeIntervalSince(started)),
                    ])
                }
            }
            let insertMeta = try database.prepare("INSERT INTO meta VALUES (?, ?)")
            for (name, value) in [
                ("schema", "\(schemaVersion)"), ("editions", "\(stats.editions)"),
                ("skipped", "\(stats.skippedLines)"), ("duplicates", "\(stats.duplicateKeys)"),
                ("lines", "\(stats.lines)"),
                ("skipped_reasons", String(decoding: try JSONEncoder.shelfline.encode(stats.skippedReasons), as: UTF8.self)),
            ] {
                insertMeta.bind(1, name)
                bindCompact(insertMeta, 2, value)  // the counts as INTEGERs, the reasons as TEXT
                try insertMeta.run()
            }
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

    /// The progress handler polls `isCancelled` inside each long statement: a signal stops any phase.
    private static func finishIndex(
        _ database: SQLiteDatabase, isCancelled: @escaping () -> Bool, paused: String,
        finished: (String) -> Void
    ) throws {
        final class Probe {
            let isCancelled: () -> Bool
            init(_ isCancelled: @escaping () -> Bool) { self.isCancelled = isCancelled }
        }
        let probe = Probe(isCancelled)
        sqlite3_progress_handler(
            database.handle, 100_000,
            { context in
                Unmanaged<Probe>.fromOpaque(context!).takeUnretainedValue().isCancelled() ? 1 : 0
            }, Unmanaged.passUnretained(probe).toOpaque())
        defer { sqlite3_progress_handler(database.handle, 0, nil, nil) }
        func checkpoint(_ phase: String?) throws {
            if let phase { finished(phase) }
            if isCancelled() { throw TryLaterError(paused) }
        }
        do {
            try withExtendedLifetime(probe) {
                try checkpoint(nil)
                // A larger `hashsize` (1 MB by default) means fewer segments to merge: less CPU, no free
                // pages; 32 MB rather than 64 keeps the peak memory down (readers ignore it). The soft
                // heap limit rises with it, or SQLite would evict the page cache the scan reads through.
                try database.execute(
                    """
                    CREATE VIRTUAL TABLE search USING fts5(title, authors, content='', columnsize=0, detail=column,
                      tokenize='unicode61 remove_diacritics 2');
                    INSERT INTO search(search, rank) VALUES ('hashsize', 33554432);
                    PRAGMA soft_heap_limit=100663296;
                    """)
                // Authors as `loadEdition` takes them, ids as `bindIDs` stores them (read as a JSON
                // array); name order and spacing do not matter (detail=column). One statement: far less
                // CPU than a Swift loop with two lookups an edition.
                try database.execute(
                    """
                    INSERT INTO search(rowid, title, authors)
                      SELECT id, CASE WHEN subtitle IS NULL THEN title ELSE title || ' ' || subtitle END,
                        CASE typeof(ids)
                          WHEN 'integer' THEN
                            (SELECT name FROM authors WHERE id = coalesce((SELECT target FROM redirects WHERE id = ids), ids))
                          WHEN 'text' THEN
                            (SELECT group_concat(name, ' ') FROM json_each('[' || replace(ids, ' ', ',') || ']') AS listed
                               JOIN authors ON authors.id = coalesce((SELECT target FROM redirects WHERE id = listed.value), listed.value))
                        END
                      FROM (SELECT id, title, subtitle, coalesce(authors, (SELECT authors FROM works WHERE id = editions.work)) AS ids
                            FROM editions);
                    """)
                try checkpoint("search")
                try database.execute("INSERT INTO search(search) VALUES ('optimize')")
                try checkpoint("optimize")
                // After the full-text table, reusing its freed pages; copied whole from a sorted copy,
                // which packs pages full (a sorted INSERT does not).
                for (table, key, stage) in [("isbns", "isbn", "isbn_stage"), ("title_keys", "hash", "title_stage")] {
                    let shape = "(\(key) INTEGER NOT NULL, edition INTEGER NOT NULL, PRIMARY KEY(\(key), edition)) WITHOUT ROWID"
                    try database.execute(
                        """
                        CREATE TABLE temp.\(table)_sorted\(shape);
                        INSERT OR IGNORE INTO temp.\(table)_sorted SELECT \(key), edition FROM temp.\(stage) ORDER BY \(key), edition;
                        DROP TABLE temp.\(stage);
                        CREATE TABLE main.\(table)\(shape);
                        INSERT INTO main.\(table) SELECT * FROM temp.\(table)_sorted;
                        DROP TABLE temp.\(table)_sorted;
                        """)
                }
                try checkpoint("keys")
                try CatalogSearchFilter.store(in: database)
                try checkpoint("filter")
            }
        } catch let error as LookupError where isCancelled() {
            _ = error  // SQLITE_INTERRUPT from the progress handler
            throw TryLaterError(paused)
        }
    }
}

extension CatalogIndex {
    struct DumpStamp: Codable { var size: Int; var modified: Double; var hash: String }

    /// Remembered by path, size and modification time so a multi-GB dump is hashed once.
    static func combinedHash(of dumps: [String], cacheDirectory: String) throws -> String {
        let stampPath = cacheDirectory + "/catalog-dump-hashes.json"
        var stamps = (try? readJSONFile([String: DumpStamp].self, from: stampPath)) ?? [:]
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
                stamps[absolute] = DumpStamp(size: size, modified: modified, hash: hash)
                hashes.append(hash)
                changed = true
            }
        }
        if changed { try? writeJSONFile(stamps, to: stampPath) }
        // In order: when two dumps hold the same key, the first listed wins.
        return ContentHash.string("schema \(schemaVersion)\n" + hashes.joined(separator: "\n"))
    }
}
