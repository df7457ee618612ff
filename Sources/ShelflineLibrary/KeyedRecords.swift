import ShelflineCore

/// One line of a records file with its identity fields decoded and its keys (and their hashes) made.
struct KeyedRecord {
    var fileLine: Int
    var identity: RecordIdentity
    /// The line already carries a dedupe mark (`BookRecordScan.Result.hasDedupe`).
    var hasDedupe: Bool
    var keys: RecordKeys
    /// Where the line's bytes sit in its batch.
    fileprivate var range: Range<Int>
}

/// Reads a records file for dedupe and merge's first pass: lines are decoded (`.identity`) and
/// keyed on a thread of their own, in batches, while the caller resolves and writes on its thread
/// (and the file is inflated on a third, `GzipReader`). Decoding and keying were about 40 % of
/// dedupe and a quarter of merge (perf, issue 12); records reach `body` in file order, a bad
/// line's error after every line before it, exactly as when decoding in line.
enum KeyedRecords {
    /// A few hundred lines: large enough to make the hand-over cheap, small enough to stay in cache.
    static let batchBytes = 1 << 18

    fileprivate struct Batch {
        var bytes: [UInt8] = []
        var records: [KeyedRecord] = []
    }

    /// Calls `body` with each non-empty line of `path` and its bytes.
    static func forEach(path: String, parameters: DedupeParameters,
                        _ body: (KeyedRecord, UnsafeRawBufferPointer) throws -> Void) throws {
        let prefetcher = Prefetcher<Batch>(depth: 2) { emit in
            var batch = Batch()
            batch.bytes.reserveCapacity(batchBytes + (1 << 12))
            do {
                try GzipReader(path: path).forEachLine { bytes, fileLine in
                    guard !bytes.isEmpty else { return }
                    let scanned = try BookRecordScan.decode(bytes, fields: .identity, path: path, line: fileLine)
                    let identity = RecordIdentity(scanned.record)
                    let start = batch.bytes.count
                    batch.bytes.append(contentsOf: bytes)
                    batch.records.append(KeyedRecord(fileLine: fileLine, identity: identity, hasDedupe: scanned.hasDedupe,
                                                     keys: RecordKeys(identity, parameters: parameters),
                                                     range: start..<batch.bytes.count))
                    if batch.bytes.count >= batchBytes {
                        try emit(batch)
                        batch = Batch()
                        batch.bytes.reserveCapacity(batchBytes + (1 << 12))
                    }
                }
            } catch {
                // The lines before a failure still reach the caller, then the error.
                if !batch.records.isEmpty { try emit(batch) }
                throw error
            }
            if !batch.records.isEmpty { try emit(batch) }
        }
        defer { prefetcher.stop() }
        while let batch = try prefetcher.next() {
            try batch.bytes.withUnsafeBytes { all in
                for record in batch.records {
                    try body(record, UnsafeRawBufferPointer(rebasing: all[record.range]))
                }
            }
        }
    }
}
