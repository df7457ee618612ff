import ShelflineCore

/// One line of a records file with its identity fields decoded and its keys (and their hashes) made.
struct KeyedRecord {
    var fileLine: Int
    var identity: RecordIdentity
    /// The line already carries a dedupe mark (`BookRecordScan.Result.hasDedupe`).
    var hasDedupe: Bool
    var keys: RecordKeys
}

/// Reads a records file for dedupe and merge's first pass: lines are decoded (`.identity`) and
/// keyed on two threads of their own (`DecodedLines`) while the caller resolves and writes on its
/// thread. Decoding and keying were about 40 % of dedupe and a quarter of merge, more than the
/// caller's own work (perf, issue 12). Records reach `body` in file order, a bad line's error after
/// every line before it, exactly as when decoding in line.
enum KeyedRecords {
    /// Calls `body` with each non-empty line of `path` and its bytes.
    static func forEach(path: String, parameters: DedupeParameters,
                        _ body: (KeyedRecord, UnsafeRawBufferPointer) throws -> Void) throws {
        try DecodedLines.forEach(path: path, compression: .gzip, decode: { bytes, fileLine in
            let scanned = try BookRecordScan.decode(bytes, fields: .identity, path: path, line: fileLine)
            let identity = RecordIdentity(scanned.record)
            return KeyedRecord(fileLine: fileLine, identity: identity, hasDedupe: scanned.hasDedupe,
                               keys: RecordKeys(identity, parameters: parameters))
        }) { record, bytes, _ in
            try body(record, bytes)
        }
    }
}
