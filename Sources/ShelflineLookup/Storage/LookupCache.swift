import Foundation
import ShelflineCore

/// Remote answers (negative ones too, for less long) for every run in a workspace; each is
/// committed at once, so a crash loses at most the requests in flight.
public final class LookupCache: @unchecked Sendable {
    public let path: String
    private let database: SQLiteDatabase
    private let lock = NSLock()
    private let select: SQLiteStatement
    private let upsert: SQLiteStatement
    private let lifetime: Lifetime
    private let lifetimes: [String: Lifetime]
    /// A source with none stored is answered "not cached" without a query.
    private var sourcesStored: Set<String> = []

    /// In seconds: found (`positive`) and not found (`negative`).
    public struct Lifetime: Sendable, Equatable {
        public var positive: Double
        public var negative: Double
    }

    /// `payload` is nil for a negative answer.
    public struct Entry: Sendable {
        public var payload: Data?
    }

    public init(
        path: String, positiveLifetime: Double, negativeLifetime: Double, lifetimes: [String: Lifetime] = [:]
    ) throws {
        self.path = path
        lifetime = Lifetime(positive: positiveLifetime, negative: negativeLifetime)
        self.lifetimes = lifetimes
        database = try SQLiteDatabase(path: path)
        try database.execute(
            """
            PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;
            CREATE TABLE IF NOT EXISTS answers(source TEXT NOT NULL, key TEXT NOT NULL, payload BLOB,
              fetched_at REAL NOT NULL, PRIMARY KEY(source, key)) WITHOUT ROWID;
            """)
        // A damaged file is found here, not by the first query halfway through the run.
        let check = try database.prepare("PRAGMA quick_check(1)")
        if try check.step(), let verdict = check.text(0), verdict != "ok" {
            throw LookupError.database(path: path, reason: "integrity check: \(verdict)")
        }
        select = try database.prepare("SELECT payload, fetched_at FROM answers WHERE source = ? AND key = ?")
        upsert = try database.prepare("INSERT OR REPLACE INTO answers(source, key, payload, fetched_at) VALUES (?,?,?,?)")
        let sources = try database.prepare("SELECT DISTINCT source FROM answers")
        while try sources.step() {
            if let source = sources.text(0) { sourcesStored.insert(source) }
        }
    }

    /// In one read transaction: one per statement cost more in WAL locking than the lookup.
    public func lookup(source: String, keys: [String], now: Date) throws -> [String: Entry] {
        guard !keys.isEmpty else { return [:] }
        return try lock.withLock {
            guard sourcesStored.contains(source) else { return [:] }
            try database.execute("BEGIN")
            defer { try? database.execute("COMMIT") }
            var found: [String: Entry] = [:]
            let lifetime = lifetimes[source] ?? self.lifetime
            for key in keys {
                select.bind(1, source)
                select.bind(2, key)
                defer { select.reset() }
                guard try select.step(), let fetchedAt = select.double(1) else { continue }
                let payload = select.blob(0)
                let kept = payload == nil ? lifetime.negative : lifetime.positive
                if now.timeIntervalSince1970 - fetchedAt < kept { found[key] = Entry(payload: payload) }
            }
            return found
        }
    }

    public func holdsAnswers(from source: String) -> Bool { lock.withLock { sourcesStored.contains(source) } }

    public func store(source: String, _ answers: [(key: String, payload: Data?)], now: Date) throws {
        guard !answers.isEmpty else { return }
        try lock.withLock {
            sourcesStored.insert(source)
            try database.transaction {
                for answer in answers {
                    upsert.bind(1, source)
                    upsert.bind(2, answer.key)
                    upsert.bind(3, blob: answer.payload.map(Array.init))
                    upsert.bind(4, now.timeIntervalSince1970)
                    try upsert.run()
                }
            }
        }
    }

    public func checkpoint() {
        lock.withLock { try? database.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
    }
}
