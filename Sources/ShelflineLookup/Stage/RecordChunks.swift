import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// What one cheap pass over the input tells the stage before it starts: the record count (for
/// progress) and which source lines later duplicates point back to (whose answers must be kept),
/// each with the input line of its last duplicate, after which its answer can be dropped: kept
/// to the end, the answers would grow with the import.
struct InputSurvey {
    var records = 0
    /// Source line of a first row → the input (NDJSON) line of the last duplicate pointing at it.
    var lastReference: [Int: Int] = [:]

    init(path: String) throws {
        let marker = Array("duplicateInFile".utf8)
        try GzipReader(path: path).forEachLine { bytes, line in
            guard !bytes.isEmpty else { return }
            records += 1
            // The record decoder the chunks use, not JSONDecoder (3 % of lookup's CPU, perf at 200,000 rows).
            guard Self.contains(bytes, marker, anchor: Self.markerAnchor),
                let mark = try BookRecordScan.decode(bytes, fields: .identity, path: path, line: line).record.dedupe,
                let first = mark.firstLine, mark.status == .duplicateInFile
            else { return }
            lastReference[first] = max(lastReference[first] ?? 0, line)
        }
    }

    /// The byte of `duplicateInFile` looked for first: its `F`, about 60 times rarer in records
    /// than its leading `d` (corpus-shaped rows: 0.37 against 22 a line), so `memchr` stops and
    /// `memcmp` compares far less often.
    static let markerAnchor = 11

    /// Whether `needle` occurs in `haystack`: `memchr` finds each place its byte at `anchor` is,
    /// and the whole needle is compared there, not byte by byte.
    static func contains(_ haystack: UnsafeRawBufferPointer, _ needle: [UInt8], anchor: Int = 0) -> Bool {
        guard needle.indices.contains(anchor), let base = haystack.baseAddress, haystack.count >= needle.count else {
            return false
        }
        // The anchor byte of a match starting at 0 ... count - needle.count.
        let end = haystack.count - needle.count + anchor
        var start = anchor
        while start <= end, let found = memchr(base + start, Int32(needle[anchor]), end - start + 1) {
            let at = base.distance(to: UnsafeRawPointer(found))
            if memcmp(base + (at - anchor), needle, needle.count) == 0 { return true }
            start = at + 1
        }
        return false
    }
}

/// One input record: the fields lookup reads (`BookRecordScan`'s identity fields) and the line's
/// own bytes, which the output copies with `match` and `metadata` spliced in.
struct InputRecord: Sendable {
    var record: BookRecord
    var bytes: [UInt8]
    /// The record's line in the input file (1-based).
    var fileLine: Int
    /// The line already carries `match` or `metadata` (then it is re-encoded, not spliced).
    var annotated: Bool
}

/// Reads (decompresses and scans) the input on its own thread and hands out chunks of records, at
/// most two ahead of the consumer, so memory stays bounded by the chunk size whatever the input
/// size, and decompression runs on one core while lookup works on the other.
final class RecordChunks: @unchecked Sendable {
    // Created at 0 and signalled twice: libdispatch traps if a semaphore is freed below its initial value.
    private let permits = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var stopped = false
    let stream: AsyncThrowingStream<[InputRecord], any Error>

    private struct Stop: Error {}

    init(path: String, chunkSize: Int) {
        var continuation: AsyncThrowingStream<[InputRecord], any Error>.Continuation!
        stream = AsyncThrowingStream { continuation = $0 }
        let output = continuation!
        permits.signal()
        permits.signal()
        let thread = Thread { [self] in
            do {
                var chunk: [InputRecord] = []
                chunk.reserveCapacity(chunkSize)
                try GzipReader(path: path).forEachLine { bytes, line in
                    guard !bytes.isEmpty else { return }
                    let scanned = try BookRecordScan.decode(bytes, fields: .identity, path: path, line: line)
                    chunk.append(
                        InputRecord(
                            record: scanned.record, bytes: Array(bytes), fileLine: line,
                            annotated: scanned.hasMatch || scanned.hasMetadata))
                    if chunk.count >= chunkSize {
                        try hand(chunk, to: output)
                        chunk.removeAll(keepingCapacity: true)
                    }
                }
                if !chunk.isEmpty { try hand(chunk, to: output) }
                output.finish()
            } catch is Stop {
                output.finish()
            } catch {
                output.finish(throwing: error)
            }
        }
        thread.start()
    }

    private func hand(_ chunk: [InputRecord], to output: AsyncThrowingStream<[InputRecord], any Error>.Continuation) throws {
        permits.wait()
        if lock.withLock({ stopped }) { throw Stop() }
        output.yield(chunk)
    }

    /// The consumer finished a chunk: the reader may read one more.
    func consumed() { permits.signal() }

    /// Stops the reader thread (on cancellation or error).
    func stop() {
        lock.withLock { stopped = true }
        permits.signal()
        permits.signal()
    }
}
