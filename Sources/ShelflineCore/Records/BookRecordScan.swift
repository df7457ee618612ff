import Foundation

/// The byte-level decoder of the record lines between stages, in one pass with `JSONScanner`. With
/// `.identity` it reads only what dedupe, lookup and merge's first pass decide on and skips the rest
/// (checking its syntax), so a stage can copy the line and append its member (`splice`).
///
/// Why: `JSONDecoder`/`JSONEncoder` measured 4–20× slower. Any doubt sends the line to
/// `JSONDecoder`, which decodes it or gives the precise error; both give the same record. Names are
/// matched as bytes: making each a `String` cost 2 % of an import's CPU.
public enum BookRecordScan {
    public enum Fields: Sendable { case identity, all }

    public struct Result {
        public var record: BookRecord
        /// The line carries `dedupe`, `match` or `metadata` (in `.identity` mode `metadata` is not read).
        public var hasDedupe: Bool
        public var hasMatch: Bool
        public var hasMetadata: Bool
    }

    /// Nil when the fast path cannot vouch for the line.
    public static func scan(_ bytes: UnsafeRawBufferPointer, fields: Fields) -> Result? {
        var scanner = JSONScanner(bytes)
        var format: SourceFormat?
        var line: Int?, byteOffset: Int?, byteLength: Int?
        var title: String?
        var record = BookRecord(format: .generic, line: 0, title: "")
        var hasDedupe = false, hasMatch = false, hasMetadata = false
        var compactPositions: [Int?]?  // resolved against `shelves`, which comes later in the line
        let all = fields == .all
        scanner.skipWhitespace()
        let wellFormed = scanner.rawMembers { s, key in
            switch key {
            case "dedupe": hasDedupe = true
            case "match": hasMatch = true
            case "metadata": hasMetadata = true
            default: break
            }
            if s.null() { return true }  // JSONDecoder reads null as absent
            switch key {
            case "format":
                guard let value = s.string(), let parsed = SourceFormat(rawValue: value) else { return false }
                format = parsed
            case "line": guard let value = s.int() else { return false }; line = value
            case "byteOffset": guard let value = s.int() else { return false }; byteOffset = value
            case "byteLength": guard let value = s.int() else { return false }; byteLength = value
            case "title": guard let value = s.string() else { return false }; title = value
            case "rowId": return s.string(into: &record.rowId)
            case "titleBase": return s.string(into: &record.titleBase)
            case "titleIsPlaceholder": return s.bool(into: &record.titleIsPlaceholder)  // lookup asks by key
            case "identifiers":  // lookup asks the sources that read them
                guard let value = s.stringMap() else { return false }
                record.identifiers = value
            case "seriesPosition": return s.string(into: &record.seriesPosition)  // identity: the title key
            case "author": return s.string(into: &record.author)
            case "additionalAuthors": return s.strings(into: &record.additionalAuthors)
            case "isbn13": return s.string(into: &record.isbn13)
            case "isbn10": return s.string(into: &record.isbn10)
            case "publisher": return s.string(into: &record.publisher)
            case "pages": return s.int(into: &record.pages)
            case "year": return s.int(into: &record.year)
            case "textsApart": return s.bool(into: &record.textsApart)  // merge's first pass joins texts
            case "dedupe":
                guard let mark = dedupeMark(&s) else { return false }
                record.dedupe = mark
            case "match":
                guard let match = matchResult(&s) else { return false }
                record.match = match
            case "metadata":
                guard all else { return s.skipValue(depth: 1) }
                guard let metadata = editionMetadata(&s) else { return false }
                record.metadata = metadata
            case "shelfPositions":
                guard all else { return s.skipValue(depth: 1) }
                return shelfPositionList(&s, objects: &record.shelfPositions, compact: &compactPositions)
            default:
                guard all else { return s.skipUnknown(key, depth: 1) }
                return readerField(key, &s, &record)
            }
            return true
        }
        guard wellFormed, scanner.atEnd(), let format, let line, let byteOffset, let byteLength, let title else { return nil }
        if let compactPositions {
            // Not one position per shelf: JSONDecoder gives the error (`RecordMember.shelfPositions`).
            guard let list = ShelfPosition.resolving(compactPositions, shelves: record.shelves) else { return nil }
            record.shelfPositions = list
        }
        record.format = format
        record.line = line
        record.byteOffset = byteOffset
        record.byteLength = byteLength
        record.title = title
        return Result(record: record, hasDedupe: hasDedupe, hasMatch: hasMatch, hasMetadata: hasMetadata)
    }

    /// The fast path, else `JSONDecoder`; a line neither accepts is `FileError.corrupt`.
    public static func decode(_ bytes: UnsafeRawBufferPointer, fields: Fields, path: String, line: Int) throws -> Result {
        if let result = scan(bytes, fields: fields) { return result }
        do {
            let record = try JSONDecoder().decode(BookRecord.self, from: Data(bytes))
            // The fast path refused a line JSONDecoder accepts: say it carries every annotation
            // (null or not), so a stage re-encodes it rather than splicing a second member in.
            return Result(record: record, hasDedupe: true, hasMatch: true, hasMetadata: true)
        } catch {
            throw FileError.corrupt(path: path, line: line, reason: "invalid record: \(describeDecoding(error))")
        }
    }

    /// Appends `line` with `members` (name, JSON value bytes) after its last member: the record's
    /// own bytes are copied, not re-encoded.
    public static func splice(_ line: UnsafeRawBufferPointer, adding members: [(String, [UInt8])], into out: inout [UInt8]) {
        var close = line.count
        while close > 0, line[close - 1] != UInt8(ascii: "}") { close -= 1 }
        guard close > 0 else { return }
        close -= 1
        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: line[..<close]))
        var empty = true
        var index = close - 1
        while index >= 0, line[index] == 0x20 || line[index] == 0x0A || line[index] == 0x0D || line[index] == 0x09 { index -= 1 }
        if index >= 0, line[index] != UInt8(ascii: "{") { empty = false }
        for (name, value) in members {
            if !empty { out.append(UInt8(ascii: ",")) }
            empty = false
            JSONString.append(name, to: &out)
            out.append(UInt8(ascii: ":"))
            out.append(contentsOf: value)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// A `reads` array of a record or library book (`{start?, end?}` objects, other members skipped).
    public static func readSpans(_ s: inout JSONScanner) -> [ReadSpan]? {
        var spans: [ReadSpan] = []
        let ok = s.array { s in
            var span = ReadSpan()
            let ok = s.rawMembers { s, key in
                if s.null() { return true }
                switch key {
                case "start": return s.string(into: &span.start)
                case "end": return s.string(into: &span.end)
                default: return s.skipUnknown(key, depth: 3)
                }
            }
            spans.append(span)
            return ok
        }
        return ok ? spans : nil
    }

    /// A `shelfPositions` array of a library book (`{shelf, position?}`, other members skipped).
    public static func shelfPositions(_ s: inout JSONScanner) -> [ShelfPosition]? {
        var positions: [ShelfPosition] = []
        let ok = s.array { s in
            guard let item = shelfPosition(&s) else { return false }
            positions.append(item)
            return true
        }
        return ok ? positions : nil
    }

    /// A record's `shelfPositions` in either shape (`ShelfPosition.aligned`); false for a mix.
    static func shelfPositionList(_ s: inout JSONScanner, objects: inout [ShelfPosition]?, compact: inout [Int?]?) -> Bool {
        var items: [ShelfPosition] = [], positions: [Int?] = []
        let ok = s.array { s in
            if s.peek() == UInt8(ascii: "{") {
                guard let item = shelfPosition(&s) else { return false }
                items.append(item)
            } else if s.null() {
                positions.append(nil)
            } else {
                guard let position = s.int() else { return false }
                positions.append(position)
            }
            return true
        }
        guard ok, items.isEmpty || positions.isEmpty else { return false }
        if positions.isEmpty { objects = items } else { compact = positions }
        return true
    }

    /// One `{shelf, position?}` object (other members skipped).
    static func shelfPosition(_ s: inout JSONScanner) -> ShelfPosition? {
        var shelf: String?, position: Int?
        let ok = s.rawMembers { s, key in
            if s.null() { return true }
            switch key {
            case "shelf": return s.string(into: &shelf)
            case "position": return s.int(into: &position)
            default: return s.skipUnknown(key, depth: 3)
            }
        }
        guard ok, let shelf else { return nil }
        return ShelfPosition(shelf: shelf, position: position)
    }

    static func dedupeMark(_ s: inout JSONScanner) -> DedupeMark? {
        var status: DedupeStatus?, key: String?
        var mark = DedupeMark(status: .new, key: "")
        let ok = s.rawMembers { s, name in
            if s.null() { return true }
            switch name {
            case "status":
                guard let value = s.string(), let parsed = DedupeStatus(rawValue: value) else { return false }
                status = parsed
            case "key": guard let value = s.string() else { return false }; key = value
            case "firstLine": return s.int(into: &mark.firstLine)
            case "bookId": return s.string(into: &mark.bookId)
            default: return s.skipUnknown(name, depth: 2)
            }
            return true
        }
        guard ok, let status, let key else { return nil }
        mark.status = status
        mark.key = key
        return mark
    }

    static func matchResult(_ s: inout JSONScanner) -> MatchResult? {
        var status: MatchStatus?
        var match = MatchResult(status: .notEnriched)
        let ok = s.rawMembers { s, name in
            if s.null() { return true }
            switch name {
            case "status":
                guard let value = s.string(), let parsed = MatchStatus(rawValue: value) else { return false }
                status = parsed
            case "editionKey": return s.string(into: &match.editionKey)
            case "workKey": return s.string(into: &match.workKey)
            case "reason": return s.string(into: &match.reason)
            case "source": return s.string(into: &match.source)
            case "candidates":
                var candidates: [MatchCandidate] = []
                let ok = s.array { s in
                    guard let candidate = matchCandidate(&s) else { return false }
                    candidates.append(candidate)
                    return true
                }
                match.candidates = candidates
                return ok
            default: return s.skipUnknown(name, depth: 2)
            }
            return true
        }
        guard ok, let status else { return nil }
        match.status = status
        return match
    }

    static func matchCandidate(_ s: inout JSONScanner) -> MatchCandidate? {
        var key: String?, title: String?, authors: [String]?, score: Double?
        var workKey: String?
        let ok = s.rawMembers { s, name in
            if s.null() { return true }
            switch name {
            case "key": guard let value = s.string() else { return false }; key = value
            case "workKey": return s.string(into: &workKey)
            case "title": guard let value = s.string() else { return false }; title = value
            case "authors": return s.strings(into: &authors)
            case "score": return s.double(into: &score)
            default: return s.skipUnknown(name, depth: 4)
            }
            return true
        }
        guard ok, let key, let title, let authors, let score else { return nil }
        return MatchCandidate(key: key, workKey: workKey, title: title, authors: authors, score: score)
    }

    static func editionMetadata(_ s: inout JSONScanner) -> EditionMetadata? {
        var source: String?
        var metadata = EditionMetadata(source: "")
        let ok = s.rawMembers { s, name in
            if s.null() { return true }
            switch name {
            case "source": guard let value = s.string() else { return false }; source = value
            case "editionKey": return s.string(into: &metadata.editionKey)
            case "workKey": return s.string(into: &metadata.workKey)
            case "title": return s.string(into: &metadata.title)
            case "subtitle": return s.string(into: &metadata.subtitle)
            case "authors": return s.strings(into: &metadata.authors)
            case "publishers": return s.strings(into: &metadata.publishers)
            case "isbn13": return s.string(into: &metadata.isbn13)
            case "isbn10": return s.string(into: &metadata.isbn10)
            case "pages": return s.int(into: &metadata.pages)
            case "publishDate": return s.string(into: &metadata.publishDate)
            case "year": return s.int(into: &metadata.year)
            case "coverId": return s.int(into: &metadata.coverId)
            case "coverURL": return s.string(into: &metadata.coverURL)
            case "description": return s.string(into: &metadata.description)
            default: return s.skipUnknown(name, depth: 2)
            }
            return true
        }
        guard ok, let source else { return nil }
        metadata.source = source
        return metadata
    }
}

extension JSONScanner {
    /// False (the line goes to `JSONDecoder`) when the name holds an escape, which may spell a field's.
    mutating func skipUnknown(_ name: MemberName, depth: Int) -> Bool {
        !name.bytes.contains(UInt8(ascii: "\\")) && skipValue(depth: depth)
    }

    /// False when none was read (the value is not of the type).
    @inline(__always) static func store<Value>(_ read: Value?, in value: inout Value?) -> Bool {
        guard let read else { return false }
        value = read
        return true
    }

    /// False when the value is not a string (and so for the others).
    mutating func string(into value: inout String?) -> Bool { Self.store(string(), in: &value) }
    mutating func strings(into value: inout [String]?) -> Bool { Self.store(stringArray(), in: &value) }
    mutating func stringMap(into value: inout [String: String]?) -> Bool { Self.store(stringMap(), in: &value) }
    mutating func readSpans(into value: inout [ReadSpan]?) -> Bool { Self.store(BookRecordScan.readSpans(&self), in: &value) }
    mutating func int(into value: inout Int?) -> Bool { Self.store(int(), in: &value) }

    mutating func double(into value: inout Double?) -> Bool {
        guard let range = rawValue(depth: 1), let first = bytes[range].first,
            first == UInt8(ascii: "-") || (first >= 0x30 && first <= 0x39),
            let number = Double(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self))
        else { return false }
        value = number
        return true
    }

    mutating func bool(into value: inout Bool?) -> Bool { Self.store(bool(), in: &value) }

    mutating func bool() -> Bool? {
        if peek() == UInt8(ascii: "t") { return literal("true") ? true : nil }
        if peek() == UInt8(ascii: "f") { return literal("false") ? false : nil }
        return nil
    }
}
