import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// A scratch file of one id range of an import's records, written once and read back whole.
///
/// Merge partitions records by the top bits of their book id, so each bucket holds about
/// `records / buckets` of them: that, not the import size, bounds merge's memory.
/// Line format: `<16 hex book id>\t<line in the records file>\t<granted keys as JSON array>\t<texts line or
/// nothing>\t<record JSON>`: a record with its texts apart (`RecordTexts`) carries them from merge's first pass.
final class BucketFile {
    private let scratch: ScratchWriter
    var path: String { scratch.path }

    /// Bytes buffered a bucket before a write: merge's first pass fills every bucket at once, so
    /// this times the number of buckets is part of its peak; a smaller one costs more write calls.
    static let flushBytes = 1 << 14

    init(path: String) throws {
        scratch = try ScratchWriter(path: path, flushSize: Self.flushBytes)
    }

    func append(id: UInt64, fileLine: Int, keys: [String], texts: UnsafeRawBufferPointer? = nil, record: UnsafeRawBufferPointer)
        throws
    {
        try scratch.append { buffer in
            BookKeys.appendHex(id, to: &buffer)
            buffer.append(UInt8(ascii: "\t"))
            buffer.append(contentsOf: String(fileLine).utf8)
            buffer.append(UInt8(ascii: "\t"))
            buffer.append(UInt8(ascii: "["))
            for (index, key) in keys.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                JSONString.append(key, to: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
            buffer.append(UInt8(ascii: "\t"))
            if let texts { buffer.append(contentsOf: texts) }
            buffer.append(UInt8(ascii: "\t"))
            buffer.append(contentsOf: record)
            buffer.append(UInt8(ascii: "\n"))
        }
    }

    func close() throws { try scratch.close() }

    /// The buckets pass 2 folds, in id order, with the first id of each.
    struct Plan {
        var paths: [String]
        /// Ascending; `starts[0]` is 0.
        var starts: [UInt64]

        /// The bucket holding `id`.
        func bucket(of id: UInt64) -> Int {
            var low = 0, high = starts.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if starts[middle] <= id { low = middle } else { high = middle - 1 }
            }
            return low
        }
    }

    /// Bucket bytes above which pass 2 gets the bucket in parts: about what a 600,000-row import's
    /// buckets hold (bench/parse's rows, 256 buckets). 2 MiB, not 1: at 1 MiB the 200,000-row
    /// corpus-shaped import (1,500-byte records, 1.2 MB buckets) is split and its 300 MB of scratch
    /// written twice, 5 % of merge's CPU for 6 MB of peak RSS (docs/performance.md, "Figures behind
    /// the code's choices").
    static let partBytes = 2 << 20

    /// `files` (closed; bucket *b* holds the ids whose top `bucketBits` bits are *b*) as pass 2
    /// takes them: each one over `limit` bytes split by the next bits of its ids into as many
    /// parts as bring each part near `limit` (a power of two, at most 256), in id order.
    ///
    /// Why: a bucket is loaded whole in pass 2, and two threads load buckets ahead, so with a
    /// fixed number of buckets merge's second pass grows with the import (measured: 117 MB at
    /// 2,000,000 rows against 58 MB at 200,000). Split, a part holds about what a bucket of a
    /// small import does, whatever the import's size; the cost is one more sequential pass over
    /// the large buckets' bytes. A book's lines stay in their order (the fold reads them so).
    static func plan(_ files: [BucketFile], bucketBits: Int, limit: Int = partBytes, recordsPath: String) throws -> Plan {
        var plan = Plan(paths: [], starts: [])
        for (bucket, file) in files.enumerated() {
            let first = bucketBits == 0 ? 0 : UInt64(bucket) << UInt64(64 - bucketBits)
            let size = Int((try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0)
            var partBits = 0
            while partBits < 8, size >> partBits > limit { partBits += 1 }
            guard partBits > 0 else {
                plan.paths.append(file.path)
                plan.starts.append(first)
                continue
            }
            let shift = UInt64(64 - bucketBits - partBits)
            let parts = try (0..<(1 << partBits)).map { try BucketFile(path: file.path + "-\($0)") }
            try LineReader.forEachLine(path: file.path) { line, _ in
                guard let id = try bookId(of: line, path: file.path, recordsPath: recordsPath) else { return }
                try parts[Int((id >> shift) & ((1 << UInt64(partBits)) - 1))].scratch.append { buffer in
                    buffer.append(contentsOf: line)
                    buffer.append(UInt8(ascii: "\n"))
                }
            }
            for (part, partFile) in parts.enumerated() {
                try partFile.close()
                plan.paths.append(partFile.path)
                plan.starts.append(first | UInt64(part) << shift)
            }
            try? FileManager.default.removeItem(atPath: file.path)
        }
        return plan
    }

    /// The book id a bucket line starts with; nil for a line too short to be an entry (skipped).
    private static func bookId(of line: UnsafeRawBufferPointer, path: String, recordsPath: String) throws -> UInt64? {
        guard line.count > 18 else { return nil }
        guard let id = BookKeys.hexBits(UnsafeRawBufferPointer(rebasing: line[0..<16])) else {
            throw FileError.io(path: path, reason: "scratch bucket line for \(recordsPath) is damaged")
        }
        return id
    }

    /// One bucket's entries.
    struct Entry {
        var id: UInt64
        var keys: [String]
        var record: BookRecord

        /// Lookup did not enrich the row (merge spools it for not-enriched.csv).
        var notEnriched: Bool { (record.match?.status ?? .notEnriched) == .notEnriched }
    }

    /// Reads a bucket back: `body` gets each book's entries (in file order, the import's record
    /// order), books in ascending id order. Records are decoded one book at a time, so a bucket
    /// costs its bytes, not its decoded records (with two threads loading buckets, the decoded
    /// records of four buckets would be most of merge's memory at 2,000,000 rows).
    ///
    /// `removing`: the file is unlinked once read (pass 2 reads each bucket once). Its page cache
    /// goes back to the system then, not when merge ends, and the library and `not-enriched.csv`
    /// written after it reuse those pages: written into pages never used before, a page-cache write
    /// costs the development machine about six times as much, and dropping 300 MB of scratch at the
    /// end would be merge's serial tail (measured, 200,000 corpus-shaped rows; docs/performance.md).
    static func forEachBook(
        path: String, recordsPath: String, textsPath: String? = nil, removing: Bool = false,
        _ body: (UInt64, [Entry]) throws -> Void
    ) throws {
        let mapped = try MappedFile(path: path)
        if removing { unlink(path) }
        try withExtendedLifetime(mapped) {
            let all = mapped.bytes
            // Lines sorted by (book, position) rather than a dictionary of arrays: no array per
            // book, and the books come out in id order (the dictionary measured 1 % of merge).
            var lines: [(id: UInt64, range: Range<Int>)] = []
            var start = 0
            while start < all.count {
                let end = all.index(ofByte: UInt8(ascii: "\n"), in: start..<all.count) ?? all.count
                defer { start = end + 1 }
                guard
                    let id = try bookId(
                        of: UnsafeRawBufferPointer(rebasing: all[start..<end]), path: path,
                        recordsPath: recordsPath)
                else { continue }
                lines.append((id, start..<end))
            }
            lines.sort { ($0.id, $0.range.lowerBound) < ($1.id, $1.range.lowerBound) }
            var next = 0
            while next < lines.count {
                let id = lines[next].id
                var entries: [Entry] = []
                while next < lines.count, lines[next].id == id {
                    let range = lines[next].range
                    next += 1
                    // Offsets into `all` (`memchr`: see `index(ofByte:in:)`).
                    let tab = UInt8(ascii: "\t")
                    guard let lineTab = all.index(ofByte: tab, in: (range.lowerBound + 17)..<range.upperBound),
                        let keysTab = all.index(ofByte: tab, in: (lineTab + 1)..<range.upperBound),
                        let recordTab = all.index(ofByte: tab, in: (keysTab + 1)..<range.upperBound)
                    else { continue }
                    func bytes(_ part: Range<Int>) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: all[part]) }
                    let fileLine = Int(String(decoding: bytes((range.lowerBound + 17)..<lineTab), as: UTF8.self)) ?? 0
                    var keyScanner = JSONScanner(bytes((lineTab + 1)..<keysTab))
                    guard let keys = keyScanner.stringArray() else {
                        throw FileError.io(
                            path: path, reason: "scratch bucket line for \(recordsPath) line \(fileLine) is damaged")
                    }
                    var record = try BookRecordScan.decode(
                        bytes((recordTab + 1)..<range.upperBound), fields: .all,
                        path: recordsPath, line: fileLine
                    ).record
                    if recordTab > keysTab + 1 {
                        // The texts line taken for it in the first pass (checked there to name its line).
                        guard let texts = RecordTexts.decode(bytes((keysTab + 1)..<recordTab)), texts.line == record.line else {
                            throw FileError.corrupt(
                                path: textsPath ?? recordsPath, line: nil,
                                reason: "the texts of source line \(record.line) are not a texts line "
                                    + "({\"line\":N,\"notes\":…,\"review\":…})")
                        }
                        record.review = texts.review
                        record.notes = texts.notes
                        record.textsApart = nil
                    }
                    entries.append(Entry(id: id, keys: keys, record: record))
                }
                if !entries.isEmpty { try body(id, entries) }
            }
        }
    }
}
