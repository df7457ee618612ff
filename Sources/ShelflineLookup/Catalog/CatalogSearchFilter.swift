import Foundation

/// A Bloom filter over the index's title keys and terms: a search it rules out (with a small
/// catalog, nearly every row) skips SQLite. No false negatives; a false positive only runs the queries.
struct CatalogSearchFilter: Sendable {
    private var words: [UInt64]
    private var bitCount: UInt64 { UInt64(words.count * 64) }

    /// With 10 bits per key, ~1 % false positives.
    private static let probes = 7
    private static let bitsPerKey = 10

    init(capacity: Int) {
        words = [UInt64](repeating: 0, count: max(1, (capacity * Self.bitsPerKey + 63) / 64))
    }

    /// Nil when not a whole number of 8-byte words.
    init?(bytes: some ContiguousBytes) {
        guard
            let words = bytes.withUnsafeBytes({ raw -> [UInt64]? in
                let count = raw.count / 8
                guard count > 0, raw.count % 8 == 0 else { return nil }
                return (0..<count).map { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self)) }
            })
        else { return nil }
        self.words = words
    }

    var bytes: [UInt8] { words.map(\.littleEndian).withUnsafeBytes { Array($0) } }

    /// As fts5vocab names them.
    enum Column: String {
        case title, authors
    }

    mutating func insert(term: some Sequence<UInt8>, column: Column) { insert(Self.key(term: term, column: column)) }
    mutating func insert(titleHash: Int) { insert(Self.key(titleHash: titleHash)) }

    func mayContain(term: String, column: Column) -> Bool { mayContain(Self.key(term: term.utf8, column: column)) }
    func mayContain(titleHash: Int) -> Bool { mayContain(Self.key(titleHash: titleHash)) }

    // Probe i at h1 + i·h2, mapped onto the bits by a multiply-high (any size, not only powers of two).
    private mutating func insert(_ key: UInt64) {
        let count = bitCount, step = Self.mix(key) | 1
        var hash = key
        for _ in 0..<Self.probes {
            let bit = hash.multipliedFullWidth(by: count).high
            words[Int(bit >> 6)] |= 1 << (bit & 63)
            hash &+= step
        }
    }

    private func mayContain(_ key: UInt64) -> Bool {
        let count = bitCount, step = Self.mix(key) | 1
        var hash = key
        for _ in 0..<Self.probes {
            let bit = hash.multipliedFullWidth(by: count).high
            guard words[Int(bit >> 6)] & (1 << (bit & 63)) != 0 else { return false }
            hash &+= step
        }
        return true
    }

    private static func key(term: some Sequence<UInt8>, column: Column) -> UInt64 {
        mix(CatalogIndex.fnv1a(term) ^ (column == .title ? 0x7469_746c_65 : 0x6175_7468_6f72))
    }

    private static func key(titleHash: Int) -> UInt64 { mix(UInt64(bitPattern: Int64(titleHash)) ^ 0x6b65_79) }

    /// splitmix64's finaliser.
    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

extension CatalogSearchFilter {
    /// Once the full-text table and title keys are written.
    static func store(in database: SQLiteDatabase) throws {
        try database.execute("CREATE VIRTUAL TABLE temp.search_terms USING fts5vocab(main, search, col)")
        let terms = try database.scalarInt("SELECT count(*) FROM temp.search_terms") ?? 0
        // Distinct: the editions of one work mostly share their title key.
        let keys = try database.scalarInt("SELECT count(DISTINCT hash) FROM title_keys") ?? 0
        var filter = CatalogSearchFilter(capacity: terms + keys)
        let termRows = try database.prepare("SELECT term, col FROM temp.search_terms")
        while try termRows.step() {
            guard let term = termRows.text(0), let column = termRows.text(1).flatMap(Column.init) else { continue }
            filter.insert(term: term.utf8, column: column)
        }
        termRows.reset()
        let hashes = try database.prepare("SELECT hash FROM title_keys")
        while try hashes.step() {
            if let hash = hashes.int(0) { filter.insert(titleHash: hash) }
        }
        hashes.reset()
        try database.execute("DROP TABLE temp.search_terms; CREATE TABLE search_filter(bits BLOB NOT NULL)")
        let insert = try database.prepare("INSERT INTO search_filter(bits) VALUES (?)")
        insert.bind(1, blob: filter.bytes)
        try insert.run()
    }

    static func load(from database: SQLiteDatabase) throws -> CatalogSearchFilter {
        let row = try database.prepare("SELECT bits FROM search_filter")
        guard try row.step(), let bytes = row.blob(0), let filter = CatalogSearchFilter(bytes: bytes) else {
            throw LookupError.database(
                path: database.path, reason: "the search filter is missing or damaged (delete the file to rebuild the index)")
        }
        return filter
    }
}
