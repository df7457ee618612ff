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
/// Decoding and keying are about 40 % of dedupe and a quarter of merge (measured), more than the
/// caller's own work. Records reach `body` in file order, a bad line's error after every
/// line before it, exactly as when decoding in line.
enum KeyedRecords {
    /// A few hundred lines: large enough to make the hand-over cheap, small enough to stay in cache.
    static let batchBytes = 1 << 18
    /// Batches read ahead of the caller, each decoding or decoded.
    static let batchesAhead = 3

    fileprivate struct Batch {
        var bytes: [UInt8] = []
        var lines: [(range: Range<Int>, fileLine: Int)] = []

        init() { bytes.reserveCapacity(KeyedRecords.batchBytes + (1 << 12)) }
    }

    /// A batch whose two halves decode on threads of their own while the reader goes on with the
    /// next batch. Waiting for both halves in the reader leaves a quarter of both cores idle in
    /// merge's first pass: the reader, the two halves and the caller take turns rather than
    /// overlapping (measured: 1.6 cores of 2).
    fileprivate final class DecodingBatch: @unchecked Sendable {
        let bytes: [UInt8]
        // Each half is written by its own thread before it leaves `group`, read after `wait`.
        private var first: (records: [KeyedRecord], failure: (any Error)?) = ([], nil)
        private var second: (records: [KeyedRecord], failure: (any Error)?) = ([], nil)
        private let group = DispatchGroup()

        init(_ batch: Batch, path: String, parameters: DedupeParameters) {
            bytes = batch.bytes
            let lines = batch.lines
            let middle = lines.count / 2
            for half in 0..<2 {
                group.enter()
                DispatchQueue.global(qos: .userInitiated).async { [self] in
                    if half == 0 {
                        first = decode(bytes, lines[..<middle], path: path, parameters: parameters)
                    } else {
                        second = decode(bytes, lines[middle...], path: path, parameters: parameters)
                    }
                    group.leave()
                }
            }
        }

        /// The batch's records up to its first bad line (in its two halves: joining them copied
        /// every record), and that line's error.
        func wait() -> (records: [[KeyedRecord]], failure: (any Error)?) {
            group.wait()
            if let failure = first.failure { return ([first.records], failure) }
            return ([first.records, second.records], second.failure)
        }
    }

    /// Decodes `lines` of `bytes`: their records up to the first bad line, and its error.
    private static func decode(
        _ bytes: [UInt8], _ lines: ArraySlice<(range: Range<Int>, fileLine: Int)>, path: String,
        parameters: DedupeParameters
    ) -> (records: [KeyedRecord], failure: (any Error)?) {
        var records: [KeyedRecord] = []
        records.reserveCapacity(lines.count)
        do {
            try bytes.withUnsafeBytes { all in
                for (lineRange, fileLine) in lines {
                    let bytes = UnsafeRawBufferPointer(rebasing: all[lineRange])
                    let scanned = try BookRecordScan.decode(bytes, fields: .identity, path: path, line: fileLine)
                    let identity = RecordIdentity(scanned.record)
                    records.append(
                        KeyedRecord(
                            fileLine: fileLine, identity: identity, hasDedupe: scanned.hasDedupe,
                            keys: RecordKeys(identity, parameters: parameters), range: lineRange))
                }
            }
            return (records, nil)
        } catch {
            return (records, error)
        }
    }

    /// Calls `body` with each non-empty line of `path` and its bytes.
    static func forEach(
        path: String, parameters: DedupeParameters,
        _ body: (KeyedRecord, UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let prefetcher = Prefetcher<DecodingBatch>(depth: batchesAhead) { emit in
            var batch = Batch()
            func decodeAndEmit() throws {
                try emit(DecodingBatch(batch, path: path, parameters: parameters))
                batch = Batch()
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
            let (records, failure) = batch.wait()
            try batch.bytes.withUnsafeBytes { all in
                for half in records {
                    for record in half { try body(record, UnsafeRawBufferPointer(rebasing: all[record.range])) }
                }
            }
            if let failure { throw failure }
        }
    }
}
