import CSQLite
import Foundation

/// One sqlite3 connection; not thread-safe: owners serialise access.
final class SQLiteDatabase {
    let path: String
    private(set) var handle: OpaquePointer?

    init(path: String, readOnly: Bool = false) throws {
        self.path = path
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        var db: OpaquePointer?
        let status = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard status == SQLITE_OK, let db else {
            let reason = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close(db)
            throw LookupError.database(path: path, reason: "open: \(reason)")
        }
        handle = db
        sqlite3_busy_timeout(db, 5000)
    }

    deinit { close() }

    func close() {
        if let handle {
            sqlite3_close_v2(handle)
            self.handle = nil
        }
    }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &message)
        if status != SQLITE_OK {
            let reason = message.map { String(cString: $0) } ?? errorMessage
            sqlite3_free(message)
            throw LookupError.database(path: path, reason: reason)
        }
    }

    func prepare(_ sql: String) throws -> SQLiteStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw LookupError.database(path: path, reason: "\(errorMessage) in: \(sql.prefix(80))")
        }
        return SQLiteStatement(statement: statement, database: self)
    }

    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let value = try body()
            try execute("COMMIT")
            return value
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// 0 for an `INSERT OR IGNORE` that was ignored.
    var changes: Int { Int(sqlite3_changes(handle)) }

    var errorMessage: String { handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed" }

    func scalarInt(_ sql: String) throws -> Int? {
        let statement = try prepare(sql)
        return try statement.step() ? statement.int(0) : nil
    }

    func hasFTS5() -> Bool {
        (try? execute("CREATE VIRTUAL TABLE temp.fts5_probe USING fts5(x); DROP TABLE temp.fts5_probe")) != nil
    }
}

final class SQLiteStatement {
    private let statement: OpaquePointer
    private unowned let database: SQLiteDatabase
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(statement: OpaquePointer, database: SQLiteDatabase) {
        self.statement = statement
        self.database = database
    }

    deinit { sqlite3_finalize(statement) }

    func bind(_ index: Int32, _ value: String?) {
        if let value {
            // Passing the String itself copies it to a C string on every bind.
            _ = value.withCString { sqlite3_bind_text(statement, index, $0, Int32(value.utf8.count), Self.transient) }
        } else {
            sqlite3_bind_null(statement, index)
        }
    }

    func bind(_ index: Int32, _ value: Int?) {
        if let value { sqlite3_bind_int64(statement, index, Int64(value)) } else { sqlite3_bind_null(statement, index) }
    }

    func bind(_ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(statement, index, value) } else { sqlite3_bind_null(statement, index) }
    }

    /// Nil binds NULL.
    func bind(_ index: Int32, blob: [UInt8]?) {
        guard let blob else { return bind(index, nil as Int?) }
        _ = blob.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), Self.transient) }
    }

    @discardableResult
    func step() throws -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw LookupError.database(path: database.path, reason: database.errorMessage)
        }
    }

    func run() throws {
        defer { reset() }
        while try step() {}
    }

    func reset() {
        sqlite3_reset(statement)
        sqlite3_clear_bindings(statement)
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }

    func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(statement, column) else { return nil }
        return String(cString: pointer)
    }

    func int(_ column: Int32) -> Int? {
        isNull(column) ? nil : Int(sqlite3_column_int64(statement, column))
    }

    func double(_ column: Int32) -> Double? {
        isNull(column) ? nil : sqlite3_column_double(statement, column)
    }

    func isBlob(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_BLOB }

    func isInteger(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_INTEGER }

    /// Valid only during the call (no copy).
    func withBlob<T>(_ column: Int32, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        let count = Int(sqlite3_column_bytes(statement, column))
        return body(UnsafeRawBufferPointer(start: sqlite3_column_blob(statement, column), count: count))
    }

    func blob(_ column: Int32) -> Data? {
        guard let pointer = sqlite3_column_blob(statement, column) else { return isNull(column) ? nil : Data() }
        return Data(bytes: pointer, count: Int(sqlite3_column_bytes(statement, column)))
    }
}
