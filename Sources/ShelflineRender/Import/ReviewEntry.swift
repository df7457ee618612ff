import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// One row needing review as `report.html` lists it, read tolerantly from merge's `review.json`:
/// an array of entries, or an object holding them (under `rows`/`entries`/`items`/`review`, or
/// keyed by row). An entry has a line (`line`/`sourceLine`/`row`), `title`, `author` (or
/// `authors`), and `candidates` with `key`, `title`, `authors` (array or string), `score` and
/// `reason` (why it was not accepted).
public struct ReviewEntry: Sendable, Equatable {
    public struct Candidate: Sendable, Equatable {
        public var key: String
        public var title: String
        public var authors: [String]
        public var score: Double?
        /// Why the matcher did not accept it (`title differs in "ii"`, `author mismatch`).
        public var reason: String? = nil
    }

    public var line: Int?
    public var title: String
    public var author: String
    public var candidates: [Candidate]

    /// Reads `path`; an absent file is no entries, an unreadable one an error naming it.
    public static func read(path: String) throws -> [ReviewEntry] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        return entries(in: try readJSONFile(JSONValue.self, from: path))
    }

    /// The rows merge listed under `ruledOut` in `review.json`: imported without metadata, every
    /// candidate ruled out by the title rule (each with its reason).
    public static func readRuledOut(path: String) throws -> [ReviewEntry] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        guard case .object(let object) = try readJSONFile(JSONValue.self, from: path), let list = object["ruledOut"] else {
            return []
        }
        return entries(in: list)
    }

    static func entries(in value: JSONValue) -> [ReviewEntry] {
        switch value {
        case .array(let array):
            return array.compactMap(entry)
        case .object(let object):
            for key in ["rows", "entries", "items", "review", "reviews", "needsReview"] {
                if let nested = object[key], case .array = nested { return entries(in: nested) }
            }
            if let single = entry(value), object["candidates"] != nil { return [single] }
            return object.keys.sorted { (Int($0) ?? Int.max, $0) < (Int($1) ?? Int.max, $1) }.compactMap { key in
                guard var found = entry(object[key]!) else { return nil }
                if found.line == nil { found.line = Int(key) }
                return found
            }
        default:
            return []
        }
    }

    static func entry(_ value: JSONValue) -> ReviewEntry? {
        guard case .object(let object) = value else { return nil }
        let record = object["record"] ?? .null
        func field(_ keys: [String]) -> JSONValue? {
            for key in keys {
                if let found = object[key] ?? record[key], found != .null { return found }
            }
            return nil
        }
        let line = field(["line", "sourceLine", "row", "rowLine"]).flatMap(\.integer)
        let title = field(["title"]).map(\.text) ?? ""
        let author = field(["author", "authors"]).map(\.text) ?? ""
        var candidates: [Candidate] = []
        let candidateValue = field(["candidates"]) ?? (object["match"]?["candidates"])
        if case .array(let list)? = candidateValue {
            for item in list {
                guard case .object = item else { continue }
                candidates.append(
                    Candidate(
                        key: item["key"].map(\.text) ?? "", title: item["title"].map(\.text) ?? "",
                        authors: item["authors"].map(\.textList) ?? [], score: item["score"]?.double,
                        reason: item["reason"].map(\.text).flatMap { $0.isEmpty ? nil : $0 }))
            }
        }
        guard line != nil || !title.isEmpty || !candidates.isEmpty else { return nil }
        return ReviewEntry(line: line, title: title, author: author, candidates: candidates)
    }
}

/// A small RFC 4180 reader for the failed-rows CSV (quoted fields, doubled quotes, embedded
/// newlines, CRLF). The file can hold every row of a large import, so it is streamed: the report
/// page keeps the header and its first rows and only counts the rest.
enum CSVTable {
    /// The header and the first `maximumRows` data rows of the file at `path`, and how many data
    /// rows it holds in all (a missing file has none). `knownDataRows`: that count as the file's
    /// writer reported it (`MergeReport.notEnrichedRowCount`); reading then stops after the rows
    /// kept (counting 200,000 not-enriched rows was 8 % of render's CPU time, perf).
    static func read(path: String, maximumRows: Int, knownDataRows: Int? = nil) throws -> (rows: [[String]], dataRows: Int) {
        guard FileManager.default.fileExists(atPath: path) else { return ([], 0) }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError.missingInput(path: path, reason: "not readable") }
        defer { close(fd) }
        var rows: [[String]] = []
        var stream = CSVRowStream(keepingRows: maximumRows + 1)
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw FileError.io(path: path, reason: "read: \(systemErrorMessage())")
            }
            if got == 0 { break }
            buffer.withUnsafeBytes { stream.feed(UnsafeRawBufferPointer(rebasing: $0[..<got])) { rows.append($0) } }
            if let knownDataRows, rows.count > maximumRows { return (rows, knownDataRows) }
        }
        stream.finish { rows.append($0) }
        return (rows, max(0, stream.rowCount - 1))
    }

    /// Every row of `text` (header included).
    static func parse(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var stream = CSVRowStream()
        var text = text
        text.withUTF8 { stream.feed(UnsafeRawBufferPointer($0)) { rows.append($0) } }
        stream.finish { rows.append($0) }
        return rows
    }
}

/// The CSV state machine, fed bytes in pieces of any size; fields are decoded (repaired) as UTF-8.
/// The first `keepingRows` rows are built and emitted; after them rows are only counted, with no
/// field kept (measured: building every field of a 200,000-row not-enriched.csv is most of
/// render's 0.7 s), and inside a quoted field the next quote is found with `memchr`.
struct CSVRowStream {
    /// Rows completed so far, emitted or only counted.
    private(set) var rowCount = 0
    private let keepingRows: Int
    private var row: [String] = []
    private var field: [UInt8] = []
    /// The current field has content (bytes or an opening quote), as `field` would if it were kept.
    private var fieldStarted = false
    private var fieldHasBytes = false
    private var rowStarted = false
    private var quoted = false
    /// A `"` inside a quoted field, not yet known to be a doubled quote or the closing one.
    private var quoteSeen = false

    init(keepingRows: Int = .max) {
        self.keepingRows = keepingRows
    }

    private var keeping: Bool { rowCount < keepingRows }

    mutating func feed(_ bytes: UnsafeRawBufferPointer, _ emit: ([String]) -> Void) {
        guard let base = bytes.baseAddress else { return }
        var index = 0
        while index < bytes.count {
            if quoted && !quoteSeen && !keeping {
                // Counting only: skip to the quote that ends (or doubles inside) this field.
                let next =
                    memchr(base + index, Int32(UInt8(ascii: "\"")), bytes.count - index)
                    .map { base.distance(to: UnsafeRawPointer($0)) } ?? bytes.count
                if next > index { fieldHasBytes = true }
                index = next
                if index == bytes.count { return }
            }
            take(bytes[index], emit)
            index += 1
        }
    }

    mutating func finish(_ emit: ([String]) -> Void) {
        quoteSeen = false
        quoted = false
        if fieldStarted || fieldHasBytes || rowStarted { endRow(emit) }
    }

    private mutating func append(_ byte: UInt8) {
        if keeping { field.append(byte) }
        fieldHasBytes = true
    }

    private mutating func endField() {
        if keeping { row.append(String(decoding: field, as: UTF8.self)) }
        field.removeAll(keepingCapacity: true)
        fieldHasBytes = false
        rowStarted = true
    }

    private mutating func endRow(_ emit: ([String]) -> Void) {
        endField()
        if keeping { emit(row) }
        row = []
        rowCount += 1
        rowStarted = false
        fieldStarted = false
    }

    private mutating func take(_ byte: UInt8, _ emit: ([String]) -> Void) {
        if quoteSeen {
            quoteSeen = false
            if byte == UInt8(ascii: "\"") {
                append(byte)
                return
            }
            quoted = false
        } else if quoted {
            if byte == UInt8(ascii: "\"") { quoteSeen = true } else { append(byte) }
            return
        }
        switch byte {
        case UInt8(ascii: "\"") where !fieldHasBytes:
            quoted = true
            fieldStarted = true
        case UInt8(ascii: ","):
            endField()
            fieldStarted = true
        case UInt8(ascii: "\r"):
            return
        case UInt8(ascii: "\n"):
            endRow(emit)
        default:
            append(byte)
            fieldStarted = true
        }
    }
}
