import Foundation

/// Parse's texts file: the `review` and `notes` of the records marked `textsApart`, joined back by
/// merge. Why: they are about half the bytes of every intermediate file and only merge reads them;
/// apart, dedupe and lookup run in 0.82× and 0.74× the time (docs/performance.md).
///
/// Parse's report names the file with its SHA-256 and line count, so merge joins the texts of the
/// parse that wrote the records or refuses. One line per record with texts, by source line:
/// `{"byteLength":L,"byteOffset":O,"line":N,"notes":"…","review":"…"}` (`JSONEncoder.shelfline`'s
/// bytes). The first three name the row as the record does, so another parse's texts differ even
/// where their source lines coincide; lines without them (parse version 4) are read by line alone.
public enum RecordTexts {
    /// Parse's unlisted output, beside its records.
    public static let fileName = "texts.ndjson.gz"

    public static func path(besides records: String) -> String {
        StageFiles.beside(records, named: fileName)
    }

    /// Nil for anything but an object of `line` (required), `byteOffset`, `byteLength`, and `notes`
    /// and `review` (strings or null): a texts line can set no other field of a record.
    public static func decode(_ bytes: UnsafeRawBufferPointer) -> (line: Int, review: String?, notes: String?)? {
        var scanner = JSONScanner(bytes)
        var line: Int?, review: String?, notes: String?, offset: Int?
        scanner.skipWhitespace()
        let ok = scanner.rawMembers { s, key in
            if s.null() { return key == "review" || key == "notes" }
            switch key {
            case "line": return s.int(into: &line)
            case "byteOffset", "byteLength": return s.int(into: &offset)
            case "review": return s.string(into: &review)
            case "notes": return s.string(into: &notes)
            default: return false
            }
        }
        guard ok, scanner.atEnd(), let line else { return nil }
        return (line, review, notes)
    }

    /// The record a texts line names first (`{"byteLength":L,"byteOffset":O,"line":N`, or version
    /// 4's `{"line":N`), without decoding the texts.
    static func leadingRecord(_ bytes: UnsafeRawBufferPointer) -> (line: Int, row: (byteOffset: Int, byteLength: Int)?)? {
        var index = 1
        func member(_ name: String) -> Int? {
            let prefix = "\"\(name)\":".utf8
            guard bytes.count - index > prefix.count,
                UnsafeRawBufferPointer(rebasing: bytes[index...]).starts(with: prefix)
            else { return nil }
            index += prefix.count
            var value = 0
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39, index - start < 18 {
                value = value * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            guard index > start, index < bytes.count, bytes[index] == UInt8(ascii: ",") || bytes[index] == UInt8(ascii: "}")
            else {
                return nil
            }
            index += 1
            return value
        }
        guard bytes.first == UInt8(ascii: "{") else { return nil }
        if let byteLength = member("byteLength") {
            guard let byteOffset = member("byteOffset"), let line = member("line") else { return nil }
            return (line, (byteOffset, byteLength))
        }
        return member("line").map { ($0, nil) }
    }

    /// What a parse report says of its texts file.
    public struct Reference: Codable, Sendable, Equatable {
        /// Relative to the report's directory when it lies inside it.
        public var file: String
        public var sha256: String
        public var lines: Int

        public init(file: String, sha256: String, lines: Int) {
            self.file = file
            self.sha256 = sha256
            self.lines = lines
        }

        public func path(reportPath: String) -> String {
            file.hasPrefix("/") ? file : StageFiles.beside(reportPath, named: file)
        }
    }
}

/// A texts file's lines in order, for merge's first pass; inflated on one thread and hashed on
/// another, so the pass does not wait for the hash. `take` fails unless the next line is the
/// record's, and `finish` unless every line was taken and the hash is the report's: two parses'
/// records and texts never join. Merge calls `finish` before it writes anything but scratch.
public final class RecordTextsReader {
    public let path: String
    private let expected: RecordTexts.Reference
    private let prefetcher: Prefetcher<Batch>
    /// Hashed on a thread of its own from the start.
    private let hash: Prefetcher<String>
    private var batch = Batch()
    private var next = 0
    private var taken = 0

    private struct Batch {
        var bytes: [UInt8] = []
        var lines: [Entry] = []
    }

    private struct Entry {
        var line: Int
        var row: (byteOffset: Int, byteLength: Int)?
        var range: Range<Int>
        var fileLine: Int
    }

    /// Missing is 66.
    public init(reference: RecordTexts.Reference, reportPath: String) throws {
        let path = reference.path(reportPath: reportPath)
        self.path = path
        expected = reference
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw FileError.missingInput(
                path: path, reason: "the records' reviews and notes (texts of \(reportPath)) are missing; run parse again")
        }
        hash = Prefetcher { emit in try emit(ContentHash.file(path)) }
        // On the prefetcher's thread, no read-ahead: a few megabytes beside merge's first pass.
        prefetcher = Prefetcher(depth: 2) { emit in
            var batch = Batch()
            try GzipReader(path: path).forEachLine(readAhead: false) { bytes, fileLine in
                guard !bytes.isEmpty else { return }
                guard let named = RecordTexts.leadingRecord(bytes) else {
                    throw FileError.corrupt(
                        path: path, line: fileLine,
                        reason: "not a texts line (expected {\"byteLength\":L,\"byteOffset\":O,\"line\":N,…})")
                }
                let start = batch.bytes.count
                batch.bytes.append(contentsOf: bytes)
                batch.lines.append(Entry(line: named.line, row: named.row, range: start..<batch.bytes.count, fileLine: fileLine))
                if batch.bytes.count >= 1 << 18 {
                    try emit(batch)
                    batch = Batch()
                }
            }
            if !batch.lines.isEmpty { try emit(batch) }
        }
    }

    deinit { prefetcher.stop() }

    /// The texts line of source line `line`, valid during the call: the file's next line must be
    /// it, and name the record's row when it names one.
    public func take(
        line: Int, byteOffset: Int, byteLength: Int, recordsPath: String,
        _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard let entry = try nextLine() else {
            throw FileError.corrupt(
                path: recordsPath, line: nil,
                reason: "the record of source line \(line) has its texts apart, but \(path) ends before them")
        }
        guard entry.line == line else {
            throw FileError.corrupt(
                path: path, line: entry.fileLine,
                reason: "texts of source line \(entry.line) where \(recordsPath) has the record of line \(line) next: "
                    + "records and texts are from different parses or out of order")
        }
        if let row = entry.row, row != (byteOffset, byteLength) {
            throw FileError.corrupt(
                path: path, line: entry.fileLine,
                reason: "texts of the row at bytes \(row.byteOffset)+\(row.byteLength) of the source, where "
                    + "\(recordsPath)'s record of line \(line) is at \(byteOffset)+\(byteLength): records and texts "
                    + "are from different parses; give merge the parse report of the parse that wrote the records")
        }
        next += 1
        taken += 1
        try batch.bytes.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[entry.range])) }
    }

    /// Fails unless every line was taken, as many as the report says.
    public func finish(recordsPath: String) throws {
        if let entry = try nextLine() {
            throw FileError.corrupt(
                path: path, line: entry.fileLine,
                reason: "texts of source line \(entry.line), which no record of \(recordsPath) has apart")
        }
        guard taken == expected.lines else {
            throw FileError.corrupt(
                path: path, line: nil, reason: "\(taken) texts lines, the parse report says \(expected.lines)")
        }
        guard try hash.next() == expected.sha256 else {
            throw FileError.corrupt(
                path: path, line: nil,
                reason: "is not the texts file the parse report was written with (changed since parse?); run parse again")
        }
        prefetcher.stop()
    }

    /// Nil at the end.
    private func nextLine() throws -> Entry? {
        if next == batch.lines.count {
            guard let more = try prefetcher.next() else { return nil }
            batch = more
            next = 0
        }
        return batch.lines.isEmpty ? nil : batch.lines[next]
    }
}
