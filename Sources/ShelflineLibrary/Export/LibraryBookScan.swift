import Foundation
import ShelflineCore

/// The byte-level decoder of a library line; a line it cannot vouch for goes to `JSONDecoder`, which alone
/// made an export twice as slow as Python's csv writer (bench/export).
enum LibraryBookScan {
    /// `only`: the members to decode besides `id` and `title`, the others syntax-checked (whole books were
    /// most of the library page's time). Names match as raw bytes: a `String` each was most of the scan.
    static func scan(_ bytes: UnsafeRawBufferPointer, only mask: UInt64? = nil) -> LibraryBook? {
        var scanner = JSONScanner(bytes)
        var book = LibraryBook(id: "", title: "")
        var id: String?, title: String?, hasKeys = mask != nil, hasProvenance = mask != nil
        scanner.skipWhitespace()
        let wellFormed = scanner.rawMembers { s, name in
            guard let (field, bit) = Field.named(name) else {
                // A name with an escape may still be a field: `JSONDecoder` decides.
                if mask == nil || name.bytes.contains(UInt8(ascii: "\\")) { return false }
                return s.skipValue(depth: 1)
            }
            if let mask, field != .id, field != .title, mask & bit == 0 { return s.skipValue(depth: 1) }
            if s.null() { return true }
            switch field {
            case .id: id = s.string(); return id != nil
            case .title: title = s.string(); return title != nil
            case .keys:
                guard let value = s.stringArray() else { return false }
                book.keys = value
                hasKeys = true
                return true
            case .provenance:
                var contributions: [Contribution] = []
                let ok = s.array { s in
                    guard let contribution = Self.contribution(&s) else { return false }
                    contributions.append(contribution)
                    return true
                }
                guard ok else { return false }
                book.provenance = contributions
                hasProvenance = true
                return true
            case .rating:
                guard let range = s.rawValue() else { return false }
                return set(Double(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)), &book.rating)
            default: return read(field, &s, into: &book)
            }
        }
        guard wellFormed, scanner.atEnd(), let id, let title, hasKeys, hasProvenance else { return nil }
        book.id = id
        book.title = title
        return book
    }

    /// False when there was no value to read.
    @inline(__always)
    static func set<Value>(_ value: Value?, _ target: inout Value?) -> Bool {
        guard let value else { return false }
        target = value
        return true
    }

    static func contribution(_ s: inout JSONScanner) -> Contribution? {
        var importId: String?, format: SourceFormat?, lines: [Int]?, rowIds: [String]?, fields: [String]?
        let ok = s.rawMembers { s, name in
            if s.null() { return true }
            switch name {
            case "importId": importId = s.string(); return importId != nil
            case "format": format = s.string().flatMap(SourceFormat.init(rawValue:)); return format != nil
            case "rowIds": rowIds = s.stringArray(); return rowIds != nil
            case "fields": fields = s.stringArray(); return fields != nil
            case "lines":
                var values: [Int] = []
                let ok = s.array { s in
                    guard let value = s.int() else { return false }
                    values.append(value)
                    return true
                }
                lines = values
                return ok
            default: return false
            }
        }
        guard ok, let importId, let format, let lines, let fields else { return nil }
        return Contribution(importId: importId, format: format, lines: lines, rowIds: rowIds, fields: fields)
    }

    /// The fast path, else `JSONDecoder`; a line neither accepts is `FileError.corrupt` naming it.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, decoder: JSONDecoder, path: String, line: Int,
        only: UInt64? = nil
    ) throws -> LibraryBook {
        if let book = scan(bytes, only: only) { return book }
        do {
            return try decoder.decode(LibraryBook.self, from: Data(bytes))
        } catch {
            throw FileError.corrupt(path: path, line: line, reason: "invalid book: \(describeDecoding(error))")
        }
    }
}

extension JSONScanner {
    /// Nil (nothing consumed) for any value but `true` or `false`.
    mutating func boolean() -> Bool? {
        if peek() == UInt8(ascii: "t") { return rawValue().map { bytes[$0].elementsEqual("true".utf8) } ?? nil }
        if peek() == UInt8(ascii: "f") { return rawValue().flatMap { bytes[$0].elementsEqual("false".utf8) ? false : nil } }
        return nil
    }
}

extension LibraryBookScan.Field {
    static func mask(of names: Set<String>) -> UInt64 {
        zip(allCases, 0...).reduce(0) { mask, entry in names.contains(entry.0.rawValue) ? mask | 1 << entry.1 : mask }
    }

    /// Compared as bytes: no `String` made.
    static func named(_ name: MemberName) -> (LibraryBookScan.Field, UInt64)? {
        let count = name.bytes.count
        guard count < byLength.count else { return nil }
        for entry in byLength[count]
        where entry.spelling.withUnsafeBytes({ memcmp($0.baseAddress!, name.bytes.baseAddress!, count) == 0 }) {
            return (entry.field, entry.bit)
        }
        return nil
    }

    private static let byLength: [[(spelling: [UInt8], field: LibraryBookScan.Field, bit: UInt64)]] = {
        var table = [[(spelling: [UInt8], field: LibraryBookScan.Field, bit: UInt64)]](
            repeating: [], count: 1 + allCases.map(\.rawValue.utf8.count).max()!)
        for (field, index) in zip(allCases, 0...) {
            table[field.rawValue.utf8.count].append((Array(field.rawValue.utf8), field, 1 << UInt64(index)))
        }
        return table
    }()
}
