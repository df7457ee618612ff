import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// One id range (top bits of the book id) of an import's records: the bucket, not the import, bounds merge's memory.
/// Line: `<16 hex book id>\t<records file line>\t<granted keys, JSON array>\t<texts line or nothing>\t<record JSON>`.
final class BucketFile {
    private let scratch: ScratchWriter
    var path: String { scratch.path }

    /// Pass 1 fills every bucket at once, so this times the buckets is part of its peak; smaller costs more writes.
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

        func bucket(of id: UInt64) -> Int {
            var low = 0, high = starts.count - 1
            while low < high {
                let middle = (low + high + 1) / 2
                if starts[middle] <= id { low = middle } else { high = middle - 1 }
            }
            return low
        }
    }

    /// Bucket bytes above which pass 2 takes a bucket in parts. 2 MiB, not 1: 1 MiB splits the 200,000-row
    /// corpus-shaped import's buckets, 5 % of merge's CPU for 6 MB of RSS (docs/performance.md).
    static let partBytes = 2 << 20

    /// `files` (closed) in id order, each over `limit` split by its ids' next bits into up to 256 parts: buckets
    /// load whole, two ahead, so pass 2 grew with the import (117 MB at 2,000,000 rows, 58 MB at 200,000).
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

    /// Nil for a line too short to be an entry (skipped).
    private static func bookId(of line: UnsafeRawBufferPointer, path: String, recordsPath: String) throws -> UInt64? {
        guard line.count > 18 else { return nil }
        guard let id = BookKeys.hexBits(UnsafeRawBufferPointer(rebasing: line[0..<16])) else {
            throw FileError.io(path: path, reason: "scratch bucket line for \(recordsPath) is damaged")
        }
        return id
    }

    struct Entry {
        var id: UInt64
        var keys: [String]
        var record: BookRecord

        var notEnriched: Bool { (record.match?.status ?? .notEnriched) == .notEnriched }
    }

    /// Each book's entries in record order, books in id order, decoded a book at a time (four decoded
    /// buckets were most of merge's memory). `removing`: unlinked once mapped, so the files written next
    /// reuse its page cache: fresh pages cost six times as much (measured; docs/performance.md).
    static func forEachBook(
        path: String, recordsPath: String, textsPath: String? = nil, removing: Bool = false,
        _ body: (UInt64, [Entry]) throws -> Void
    ) throws {
        let mapped = try MappedBuffer<UInt8>(file: path)
        if removing { unlink(path) }
        try withExtendedLifetime(mapped) {
            let all = UnsafeRawBufferPointer(mapped.elements)
            // Sorted by (book, position): no array per book, books in id order (a dictionary was 1 % of merge).
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
