import Foundation
import ShelflineCore

/// Reads a dump on one thread and parses it on two more (one held up the SQLite writer), handing
/// batches in order to the caller; at most `queueLimit` are read ahead.
final class ParsedDumpReader: @unchecked Sendable {
    struct Line {
        var number: Int
        /// Nil for an empty line.
        var record: Result<CatalogDumpRecord, CatalogDumpRecord.Malformed>?
    }

    /// Lines copied out of the reader's buffer, end to end.
    private struct RawBatch {
        var sequence: Int
        var firstNumber: Int
        var bytes: [UInt8] = []
        var ends: [Int] = []
    }

    private let path: String
    private let batchSize: Int
    private let queueLimit: Int
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var raw: [RawBatch] = []
    private var parsed: [Int: [Line]] = [:]
    private var batchesRead = 0
    private var nextToHand = 0
    private var readingFinished = false
    private var runningThreads = 0
    private var stopped = false
    private var failure: (any Error)?

    private init(path: String, batchSize: Int, queueLimit: Int) {
        self.path = path
        self.batchSize = batchSize
        self.queueLimit = queueLimit
    }

    /// A read error is thrown after the batches before it; an error from `body` stops the reader.
    static func forEachBatch(
        path: String, batchSize: Int = 4096, queueLimit: Int = 4, parsers: Int = 2,
        _ body: ([Line]) throws -> Void
    ) throws {
        let reader = ParsedDumpReader(path: path, batchSize: batchSize, queueLimit: queueLimit)
        reader.runningThreads = 1 + parsers
        reader.start { reader.read() }
        for _ in 0..<parsers { reader.start { reader.parse() } }
        defer { reader.stopAndWait() }
        while let batch = reader.next() {
            try body(batch)
        }
        if let failure = reader.condition.withLock({ reader.failure }) { throw failure }
    }

    /// Changes the state guarded by `condition` and wakes every waiter.
    private func update(_ change: () -> Void) {
        condition.withLock {
            change()
            condition.broadcast()
        }
    }

    private func start(_ work: @escaping @Sendable () -> Void) {
        let thread = Thread {
            work()
            self.update { self.runningThreads -= 1 }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    private struct Stopped: Error {}

    private func read() {
        var batch = RawBatch(sequence: 0, firstNumber: 0)
        do {
            try LineReader.forEachLine(path: path, compression: .detect) { line, number in
                if batch.ends.isEmpty { batch.firstNumber = number }
                batch.bytes.append(contentsOf: line)
                batch.ends.append(batch.bytes.count)
                if batch.ends.count >= batchSize {
                    try hand(batch)
                    batch = RawBatch(sequence: batch.sequence + 1, firstNumber: 0)
                }
            }
            if !batch.ends.isEmpty { try hand(batch) }
        } catch is Stopped {
        } catch {
            condition.withLock { failure = error }
        }
        update { readingFinished = true }
    }

    private func hand(_ batch: RawBatch) throws {
        condition.lock()
        defer { condition.unlock() }
        while batchesRead - nextToHand >= queueLimit && !stopped { condition.wait() }
        if stopped { throw Stopped() }
        raw.append(batch)
        batchesRead += 1
        condition.broadcast()
    }

    private func parse() {
        let descriptions = StoredDescription.Compressor()
        while true {
            condition.lock()
            while raw.isEmpty && !readingFinished && !stopped { condition.wait() }
            guard !stopped, !raw.isEmpty else {
                condition.unlock()
                return
            }
            let batch = raw.removeFirst()
            condition.unlock()
            var lines: [Line] = []
            lines.reserveCapacity(batch.ends.count)
            batch.bytes.withUnsafeBytes { bytes in
                var start = 0
                for (offset, end) in batch.ends.enumerated() {
                    let line = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
                    start = end
                    let number = batch.firstNumber + offset
                    if line.isEmpty {
                        lines.append(Line(number: number, record: nil))
                        continue
                    }
                    lines.append(
                        Line(
                            number: number,
                            record: Result { () throws(CatalogDumpRecord.Malformed) in
                                try CatalogDumpRecord.parse(line, descriptions: descriptions)
                            }))
                }
            }
            update { parsed[batch.sequence] = lines }
        }
    }

    /// Nil after the last.
    private func next() -> [Line]? {
        condition.lock()
        defer { condition.unlock() }
        while parsed[nextToHand] == nil && !(readingFinished && nextToHand == batchesRead) { condition.wait() }
        guard let lines = parsed.removeValue(forKey: nextToHand) else { return nil }
        nextToHand += 1
        condition.broadcast()
        return lines
    }

    private func stopAndWait() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while runningThreads > 0 { condition.wait() }
        condition.unlock()
    }
}
