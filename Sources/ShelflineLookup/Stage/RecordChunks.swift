import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// One cheap pass over the input: the record count, and each first row later duplicates point
/// at with the input line of the last one, after which its answer is dropped (kept to the end,
/// the answers would grow with the import).
struct InputSurvey {
    var records = 0
    var lastReference: [Int: Int] = [:]

    init(path: String) throws {
        let marker = Array("duplicateInFile".utf8)
        try GzipReader(path: path).forEachLine { bytes, line in
            guard !bytes.isEmpty else { return }
            records += 1
            // Not JSONDecoder: 3 % of lookup's CPU.
            guard Self.contains(bytes, marker, anchor: Self.markerAnchor),
                let mark = try BookRecordScan.decode(bytes, fields: .identity, path: path, line: line).record.dedupe,
                let first = mark.firstLine, mark.status == .duplicateInFile
            else { return }
            lastReference[first] = max(lastReference[first] ?? 0, line)
        }
    }

    /// `duplicateInFile`'s `F`, about 60 times rarer in records than its `d`: `memchr` stops less often.
    static let markerAnchor = 11

    /// `memchr` for the byte at `anchor`, then `memcmp` of the whole needle there.
    static func contains(_ haystack: UnsafeRawBufferPointer, _ needle: [UInt8], anchor: Int = 0) -> Bool {
        guard needle.indices.contains(anchor), let base = haystack.baseAddress, haystack.count >= needle.count else {
            return false
        }
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

/// The fields lookup reads and the line's own bytes, which the output copies.
struct InputRecord: Sendable {
    var record: BookRecord
    var bytes: [UInt8]
    var fileLine: Int
    /// Carries `match` or `metadata` already (then it is re-encoded, not spliced).
    var annotated: Bool
}

/// Reads the input on its own thread, at most two chunks ahead of the consumer: memory stays
/// bounded, and decompression runs on one core while lookup works on the other.
final class RecordChunks: @unchecked Sendable {
    // Created at 0 and signalled twice: libdispatch traps if a semaphore is freed below its initial value.
    private let permits = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var stopped = false
    let stream: AsyncThrowingStream<[InputRecord], any Error>

    private struct Stop: Error {}

    init(path: String, chunkSize: Int) {
        let (stream, output) = AsyncThrowingStream<[InputRecord], any Error>.makeStream()
        self.stream = stream
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

    func consumed() { permits.signal() }

    func stop() {
        lock.withLock { stopped = true }
        permits.signal()
        permits.signal()
    }
}
