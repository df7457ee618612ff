import Foundation

/// Reads and parses a dump's lines on a thread of its own, handing them in batches to the caller's
/// thread, which meanwhile writes the previous batch into SQLite: the index build uses two cores.
/// At most `queueLimit` batches wait, so memory stays bounded whatever the dump size.
final class ParsedDumpReader: @unchecked Sendable {
    /// One dump line: its number, and its record (nil for an empty line) or why it is skipped.
    struct Line {
        var number: Int
        var record: Result<CatalogDumpRecord, CatalogDumpRecord.Malformed>?
    }

    private let path: String
    private let batchSize: Int
    private let queueLimit: Int
    private let condition = NSCondition()
    // Guarded by `condition`.
    private var queue: [[Line]] = []
    private var finished = false
    private var stopped = false
    private var failure: (any Error)?

    private init(path: String, batchSize: Int, queueLimit: Int) {
        self.path = path
        self.batchSize = batchSize
        self.queueLimit = queueLimit
    }

    /// Calls `body` with each batch of parsed lines of `path`, in order, on the calling thread.
    /// A read error is thrown after the batches before it; an error from `body` stops the reader.
    static func forEachBatch(path: String, batchSize: Int = 4096, queueLimit: Int = 4,
                             _ body: ([Line]) throws -> Void) throws {
        let reader = ParsedDumpReader(path: path, batchSize: batchSize, queueLimit: queueLimit)
        let thread = Thread { reader.read() }
        thread.stackSize = 1 << 20
        thread.start()
        defer { reader.stopAndWait() }
        while let batch = reader.next() {
            try body(batch)
        }
        reader.condition.lock()
        let failure = reader.failure
        reader.condition.unlock()
        if let failure { throw failure }
    }

    private struct Stopped: Error {}

    private func read() {
        var batch: [Line] = []
        batch.reserveCapacity(batchSize)
        let descriptions = StoredDescription.Compressor()
        do {
            try DumpLineReader.forEachLine(path: path) { line, number in
                if line.isEmpty {
                    batch.append(Line(number: number, record: nil))
                } else {
                    do {
                        batch.append(Line(number: number, record: .success(try CatalogDumpRecord.parse(line, descriptions: descriptions))))
                    } catch let malformed as CatalogDumpRecord.Malformed {
                        batch.append(Line(number: number, record: .failure(malformed)))
                    }
                }
                if batch.count >= batchSize {
                    try hand(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            if !batch.isEmpty { try hand(batch) }
        } catch is Stopped {
        } catch {
            condition.lock()
            failure = error
            condition.unlock()
        }
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    private func hand(_ batch: [Line]) throws {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= queueLimit && !stopped { condition.wait() }
        if stopped { throw Stopped() }
        queue.append(batch)
        condition.broadcast()
    }

    private func next() -> [Line]? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !finished { condition.wait() }
        guard !queue.isEmpty else { return nil }
        condition.broadcast()
        return queue.removeFirst()
    }

    private func stopAndWait() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }
}
