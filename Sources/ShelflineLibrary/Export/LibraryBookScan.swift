import Foundation
import ShelflineCore

/// The byte-level decoder of a library line for the readers of the whole library (export, page,
/// `shelfline library`): one pass with `JSONScanner`. A line it cannot vouch for (an unknown key, a
/// wrong type, bad syntax) goes to `JSONDecoder`, which decodes it or names the problem.
///
/// Why: `JSONDecoder` made a 187,000-book Goodreads export take 9.8 s (bench/export, release
/// build), three times the 3 s and twice Python's csv writer over the same lines.
enum LibraryBookScan {
    /// The book of `bytes`, or nil when the fast path cannot vouch for the line.
    /// `only`: the members to decode (besides `id` and `title`); the others are skipped, still
    /// checked for syntax. The library page's counts need a few fields of every book, and decoding
    /// whole books (provenance, reviews) was most of its time at 200,000 books.
    static func scan(_ bytes: UnsafeRawBufferPointer, only: Set<String>? = nil) -> LibraryBook? {
        var scanner = JSONScanner(bytes)
        var book = LibraryBook(id: "", title: "")
        var id: String?, title: String?, hasKeys = only != nil, hasProvenance = only != nil
        scanner.skipWhitespace()
        let wellFormed = scanner.members { s, key in
            if let only, key != "id", key != "title", !only.contains(key) { return s.skipValue(depth: 1) }
            if s.null() { return true }
            if let path = strings[key] {
                guard let value = s.string() else { return false }
                book[keyPath: path] = value
                return true
            }
            if let path = stringLists[key] {
                guard let value = s.stringArray() else { return false }
                book[keyPath: path] = value
                return true
            }
            if let path = integers[key] {
                guard let value = s.int() else { return false }
                book[keyPath: path] = value
                return true
            }
            if let path = booleans[key] {
                guard let value = s.boolean() else { return false }
                book[keyPath: path] = value
                return true
            }
            switch key {
            case "id": id = s.string(); return id != nil
            case "title": title = s.string(); return title != nil
            case "keys":
                guard let value = s.stringArray() else { return false }
                book.keys = value
                hasKeys = true
            case "rating":
                guard let range = s.rawValue(), let value = Double(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self))
                else { return false }
                book.rating = value
            case "reads":
                guard let reads = BookRecordScan.readSpans(&s) else { return false }
                book.reads = reads
            case "shelfPositions":
                guard let positions = BookRecordScan.shelfPositions(&s) else { return false }
                book.shelfPositions = positions
            case "provenance":
                var contributions: [Contribution] = []
                let ok = s.array { s in
                    guard let contribution = Self.contribution(&s) else { return false }
                    contributions.append(contribution)
                    return true
                }
                guard ok else { return false }
                book.provenance = contributions
                hasProvenance = true
            default:
                return false
            }
            return true
        }
        guard wellFormed, scanner.atEnd(), let id, let title, hasKeys, hasProvenance else { return nil }
        book.id = id
        book.title = title
        return book
    }

    static func contribution(_ s: inout JSONScanner) -> Contribution? {
        var importId: String?, format: SourceFormat?, lines: [Int]?, rowIds: [String]?, fields: [String]?
        let ok = s.members { s, key in
            if s.null() { return true }
            switch key {
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

    /// The book of line `line` of `path`: the fast path, else `JSONDecoder`; a line neither accepts
    /// is `FileError.corrupt` naming the file and line.
    static func decode(_ bytes: UnsafeRawBufferPointer, decoder: JSONDecoder, path: String, line: Int,
                       only: Set<String>? = nil) throws -> LibraryBook {
        if let book = scan(bytes, only: only) { return book }
        do {
            return try decoder.decode(LibraryBook.self, from: Data(bytes))
        } catch {
            throw FileError.corrupt(path: path, line: line, reason: "invalid book: \(describeDecoding(error))")
        }
    }

    // The fields by JSON type (`nonisolated(unsafe)`: constants; key paths are not `Sendable`).
    nonisolated(unsafe) static let strings: [String: WritableKeyPath<LibraryBook, String?>] = [
        "subtitle": \.subtitle, "series": \.series, "seriesPosition": \.seriesPosition, "author": \.author,
        "isbn13": \.isbn13, "isbn10": \.isbn10, "asin": \.asin, "publisher": \.publisher, "binding": \.binding,
        "editionKey": \.editionKey, "workKey": \.workKey, "shelf": \.shelf, "dateAdded": \.dateAdded, "review": \.review,
        "notes": \.notes, "enrichment": \.enrichment, "enrichmentSource": \.enrichmentSource,
        "reviewDecision": \.reviewDecision, "recommendedFor": \.recommendedFor, "recommendedBy": \.recommendedBy,
        "purchaseDate": \.purchaseDate, "purchaseLocation": \.purchaseLocation, "condition": \.condition,
        "conditionDescription": \.conditionDescription, "bcid": \.bcid, "contributors": \.contributors, "pace": \.pace,
        "characterOrPlotDriven": \.characterOrPlotDriven, "strongCharacterDevelopment": \.strongCharacterDevelopment,
        "loveableCharacters": \.loveableCharacters, "diverseCharacters": \.diverseCharacters,
        "flawedCharacters": \.flawedCharacters, "contentWarnings": \.contentWarnings,
        "contentWarningDescription": \.contentWarningDescription,
    ]
    nonisolated(unsafe) static let stringLists: [String: WritableKeyPath<LibraryBook, [String]?>] = [
        "additionalAuthors": \.additionalAuthors, "metadataFields": \.metadataFields, "shelves": \.shelves, "moods": \.moods,
    ]
    nonisolated(unsafe) static let integers: [String: WritableKeyPath<LibraryBook, Int?>] = [
        "pages": \.pages, "year": \.year, "originalYear": \.originalYear, "coverId": \.coverId, "readCount": \.readCount,
        "ownedCopies": \.ownedCopies,
    ]
    nonisolated(unsafe) static let booleans: [String: WritableKeyPath<LibraryBook, Bool?>] = [
        "owned": \.owned, "spoiler": \.spoiler, "needsReview": \.needsReview,
    ]
}

extension JSONScanner {
    /// `true` or `false`, consumed; nil (nothing consumed) for any other value.
    mutating func boolean() -> Bool? {
        if peek() == UInt8(ascii: "t") { return rawValue().map { bytes[$0].elementsEqual("true".utf8) } ?? nil }
        if peek() == UInt8(ascii: "f") { return rawValue().flatMap { bytes[$0].elementsEqual("false".utf8) ? false : nil } }
        return nil
    }
}
