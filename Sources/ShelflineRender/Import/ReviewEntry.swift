import Foundation
import ShelflineCore

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
                candidates.append(Candidate(
                    key: item["key"].map(\.text) ?? "", title: item["title"].map(\.text) ?? "",
                    authors: item["authors"].map(\.textList) ?? [], score: item["score"]?.double,
                    reason: item["reason"].map(\.text).flatMap { $0.isEmpty ? nil : $0 }))
            }
        }
        guard line != nil || !title.isEmpty || !candidates.isEmpty else { return nil }
        return ReviewEntry(line: line, title: title, author: author, candidates: candidates)
    }
}

extension JSONValue {
    var text: String {
        switch self {
        case .string(let string): string
        case .number(let number): number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
        case .bool(let bool): String(bool)
        case .array: textList.joined(separator: ", ")
        case .object(let object): object["name"]?.text ?? ""
        case .null: ""
        }
    }

    var textList: [String] {
        if case .array(let array) = self { return array.map(\.text).filter { !$0.isEmpty } }
        let single = text
        return single.isEmpty ? [] : [single]
    }

    var integer: Int? {
        switch self {
        case .number(let number) where number == number.rounded() && abs(number) < 1e15: Int(number)
        case .string(let string): Int(string)
        default: nil
        }
    }

    var double: Double? {
        switch self {
        case .number(let number): number
        case .string(let string): Double(string)
        default: nil
        }
    }
}

/// A small RFC 4180 reader for the failed-rows CSV (quoted fields, doubled quotes, embedded
/// newlines, CRLF); the file is written by merge and small by construction.
enum CSVTable {
    static func read(path: String) throws -> [[String]] {
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw FileError.missingInput(path: path, reason: "not readable")
        }
        return parse(String(decoding: data, as: UTF8.self))
    }

    static func parse(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var fieldStarted = false
        var iterator = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? {
            if let scalar = pending { pending = nil; return scalar }
            return iterator.next()
        }
        while let scalar = next() {
            if quoted {
                if scalar == "\"" {
                    if let following = next() {
                        if following == "\"" { field.unicodeScalars.append("\"") } else { quoted = false; pending = following }
                    } else {
                        quoted = false
                    }
                } else {
                    field.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case "\"" where field.isEmpty:
                quoted = true
                fieldStarted = true
            case ",":
                row.append(field)
                field = ""
                fieldStarted = true
            case "\r":
                continue
            case "\n":
                row.append(field)
                rows.append(row)
                row = []
                field = ""
                fieldStarted = false
            default:
                field.unicodeScalars.append(scalar)
                fieldStarted = true
            }
        }
        if fieldStarted || !field.isEmpty || !row.isEmpty {
            row.append(field)
            rows.append(row)
        }
        return rows
    }
}
