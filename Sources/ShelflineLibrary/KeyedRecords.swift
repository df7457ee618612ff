import Dispatch
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
/// keyed in batches on two threads of their own (each batch split in halves), while the caller
/// resolves and writes on its thread (and the file is inflated on another, `GzipReader`).
/// Decoding and keying were about 40 % of dedupe and a quarter of merge, more than the caller's
/// own work (perf, issue 12). Records reach `body` in file order, a bad line's error after every
/// line before it, exactly as when decoding in line.
enum KeyedRecords {
    /// A few hundred lines: large enough to make the hand-over cheap, small enough to stay in cache.
    static let batchBytes = 1 << 18

    fileprivate struct Batch {
        var bytes: [UInt8] = []
        var lines: [(range: Range<Int>, fileLine: Int)] = []
        var records: [KeyedRecord] = []
        var failure: (any Error)?

        init() { bytes.reserveCapacity(KeyedRecords.batchBytes + (1 << 12)) }
    }

    /// The two halves of a batch's lines, decoded at once (each written by one thread only).
    private final class Halves: @unchecked Sendable {
        var first: (records: [KeyedRecord], failure: (any Error)?) = ([], nil)
        var second: (records: [KeyedRecord], failure: (any Error)?) = ([], nil)
    }

    /// Decodes `batch.lines[range]`: their records up to the first bad line, and its error.
    private static func decode(_ batch: Batch, _ range: Range<Int>, path: String,
                               parameters: DedupeParameters) -> (records: [KeyedRecord], failure: (any Error)?) {
        var records: [KeyedRecord] = []
        records.reserveCapacity(range.count)
        do {
            try batch.bytes.withUnsafeBytes { all in
                for (lineRange, fileLine) in batch.lines[range] {
                    let bytes = UnsafeRawBufferPointer(rebasing: all[lineRange])
                    let scanned = try BookRecordScan.decode(bytes, fields: .identity, path: path, line: fileLine)
                    let identity = RecordIdentity(scanned.record)
                    records.append(KeyedRecord(fileLine: fileLine, identity: identity, hasDedupe: scanned.hasDedupe,
                                               keys: RecordKeys(identity, parameters: parameters), range: lineRange))
                }
            }
            return (records, nil)
        } catch {
            return (records, error)
        }
    }

    /// Calls `body` with each non-empty line of `path` and its bytes.
    static func forEach(path: String, parameters: DedupeParameters,
                        _ body: (KeyedRecord, UnsafeRawBufferPointer) throws -> Void) throws {
        let prefetcher = Prefetcher<Batch>(depth: 2) { emit in
            var batch = Batch()
            func decodeAndEmit() throws {
                let middle = batch.lines.count / 2
                let halves = Halves()
                let full = batch
                DispatchQueue.concurrentPerform(iterations: 2) { half in
                    if half == 0 {
                        halves.first = decode(full, 0..<middle, path: path, parameters: parameters)
                    } else {
                        halves.second = decode(full, middle..<full.lines.count, path: path, parameters: parameters)
                    }
                }
                batch.records = halves.first.records
                batch.failure = halves.first.failure
                if batch.failure == nil {
                    batch.records += halves.second.records
                    batch.failure = halves.second.failure
                }
                let failure = batch.failure
                try emit(batch)
                batch = Batch()
                if let failure { throw failure }
            }
            do {
                try GzipReader(path: path).forEachLine { bytes, fileLine in
                    guard !bytes.isEmpty else { return }
                    let start = batch.bytes.count
                    batch.bytes.append(contentsOf: bytes)
                    batch.lines.append((start..<batch.bytes.count, fileLine))
                    if batch.bytes.count >= batchBytes { try decodeAndEmit() }
                }
            } catch {
                // The lines read before a failure still reach the caller, then the error.
                if !batch.lines.isEmpty { try decodeAndEmit() }
                throw error
            }
            if !batch.lines.isEmpty { try decodeAndEmit() }
        }
        defer { prefetcher.stop() }
        while let batch = try prefetcher.next() {
            try batch.bytes.withUnsafeBytes { all in
                for record in batch.records {
                    try body(record, UnsafeRawBufferPointer(rebasing: all[record.range]))
                }
            }
            if let failure = batch.failure { throw failure }
        }
    }
}
