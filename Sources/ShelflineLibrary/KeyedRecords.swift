import Dispatch
import ShelflineCore

/// One line of a records file with its identity fields decoded and its keys (and their hashes) made.
struct KeyedRecord {
    var fileLine: Int
    var identity: RecordIdentity
    /// The line already carries a dedupe mark.
    var hasDedupe: Bool
    var keys: RecordKeys
    fileprivate var range: Range<Int>
}

/// Decodes and keys a records file's batches on two threads while the caller resolves (about 40 % of dedupe,
/// a quarter of merge: measured); records reach `body` in file order, a bad line's error after them.
enum KeyedRecords {
    /// A few hundred lines: the hand-over is cheap, the batch stays in cache.
    static let batchBytes = 1 << 18
    static let batchesAhead = 3

    fileprivate struct Batch {
        var bytes: [UInt8] = []
        var lines: [(range: Range<Int>, fileLine: Int)] = []

        init() { bytes.reserveCapacity(KeyedRecords.batchBytes + (1 << 12)) }
    }

    /// Its halves decode while the reader goes on: waiting in the reader left a quarter of both cores idle.
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
            let queue = DispatchQueue.global(qos: .userInitiated)
            queue.async(group: group) { [self] in first = decode(bytes, lines[..<middle], path: path, parameters: parameters) }
            queue.async(group: group) { [self] in second = decode(bytes, lines[middle...], path: path, parameters: parameters) }
        }

        /// The records up to the first bad line (in two halves: joining them copied every record), and its error.
        func wait() -> (records: [[KeyedRecord]], failure: (any Error)?) {
            group.wait()
            if let failure = first.failure { return ([first.records], failure) }
            return ([first.records, second.records], second.failure)
        }
    }

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
                // Lines before a failure still reach the caller.
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
