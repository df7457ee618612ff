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
        scan(bytes, only: only.map(Field.mask(of:)))
    }

    /// `scan(_:only:)` with `only` as a `Field.mask(of:)`, made once for a whole file.
    ///
    /// Members are matched by their raw bytes (`JSONScanner.rawMembers`) and dispatched by a
    /// `switch`: making each member name a `String` and looking it up in key-path tables was most
    /// of the scan (perf, 200k-book library: merge's second import, render's page).
    static func scan(_ bytes: UnsafeRawBufferPointer, only mask: UInt64?) -> LibraryBook? {
        var scanner = JSONScanner(bytes)
        var book = LibraryBook(id: "", title: "")
        var id: String?, title: String?, hasKeys = mask != nil, hasProvenance = mask != nil
        scanner.skipWhitespace()
        let wellFormed = scanner.rawMembers { s, name in
            guard let (field, bit) = Field.named(name) else {
                // A name with an escape may still be a field: JSONDecoder decides.
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
            case .subtitle: return set(s.string(), &book.subtitle)
            case .series: return set(s.string(), &book.series)
            case .seriesPosition: return set(s.string(), &book.seriesPosition)
            case .author: return set(s.string(), &book.author)
            case .additionalAuthors: return set(s.stringArray(), &book.additionalAuthors)
            case .isbn13: return set(s.string(), &book.isbn13)
            case .isbn10: return set(s.string(), &book.isbn10)
            case .isbnAsWritten: return set(s.string(), &book.isbnAsWritten)
            case .titleAsWritten: return set(s.string(), &book.titleAsWritten)
            case .asin: return set(s.string(), &book.asin)
            case .identifiers: return set(s.stringMap(), &book.identifiers)
            case .publisher: return set(s.string(), &book.publisher)
            case .binding: return set(s.string(), &book.binding)
            case .pages: return set(s.int(), &book.pages)
            case .year: return set(s.int(), &book.year)
            case .originalYear: return set(s.int(), &book.originalYear)
            case .editionKey: return set(s.string(), &book.editionKey)
            case .workKey: return set(s.string(), &book.workKey)
            case .coverId: return set(s.int(), &book.coverId)
            case .coverURL: return set(s.string(), &book.coverURL)
            case .metadataFields: return set(s.stringArray(), &book.metadataFields)
            case .shelf: return set(s.string(), &book.shelf)
            case .shelves: return set(s.stringArray(), &book.shelves)
            case .rating:
                guard let range = s.rawValue() else { return false }
                return set(Double(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)), &book.rating)
            case .dateAdded: return set(s.string(), &book.dateAdded)
            case .reads: return set(BookRecordScan.readSpans(&s), &book.reads)
            case .readCount: return set(s.int(), &book.readCount)
            case .review: return set(s.string(), &book.review)
            case .notes: return set(s.string(), &book.notes)
            case .owned: return set(s.boolean(), &book.owned)
            case .ownedCopies: return set(s.int(), &book.ownedCopies)
            case .shelfPositions: return set(BookRecordScan.shelfPositions(&s), &book.shelfPositions)
            case .spoiler: return set(s.boolean(), &book.spoiler)
            case .recommendedFor: return set(s.string(), &book.recommendedFor)
            case .recommendedBy: return set(s.string(), &book.recommendedBy)
            case .purchaseDate: return set(s.string(), &book.purchaseDate)
            case .purchaseLocation: return set(s.string(), &book.purchaseLocation)
            case .condition: return set(s.string(), &book.condition)
            case .conditionDescription: return set(s.string(), &book.conditionDescription)
            case .bcid: return set(s.string(), &book.bcid)
            case .contributors: return set(s.string(), &book.contributors)
            case .moods: return set(s.stringArray(), &book.moods)
            case .pace: return set(s.string(), &book.pace)
            case .characterOrPlotDriven: return set(s.string(), &book.characterOrPlotDriven)
            case .strongCharacterDevelopment: return set(s.string(), &book.strongCharacterDevelopment)
            case .loveableCharacters: return set(s.string(), &book.loveableCharacters)
            case .diverseCharacters: return set(s.string(), &book.diverseCharacters)
            case .flawedCharacters: return set(s.string(), &book.flawedCharacters)
            case .contentWarnings: return set(s.string(), &book.contentWarnings)
            case .contentWarningDescription: return set(s.string(), &book.contentWarningDescription)
            case .enrichment: return set(s.string(), &book.enrichment)
            case .enrichmentSource: return set(s.string(), &book.enrichmentSource)
            case .needsReview: return set(s.boolean(), &book.needsReview)
            case .reviewDecision: return set(s.string(), &book.reviewDecision)
            }
        }
        guard wellFormed, scanner.atEnd(), let id, let title, hasKeys, hasProvenance else { return nil }
        book.id = id
        book.title = title
        return book
    }

    /// Stores a value read (false: there was none to read).
    @inline(__always)
    private static func set<Value>(_ value: Value?, _ target: inout Value?) -> Bool {
        guard let value else { return false }
        target = value
        return true
    }

    /// The members of a library line, named as in the JSON.
    enum Field: String, CaseIterable {
        case id, keys, title, subtitle, series, seriesPosition, author, additionalAuthors, isbn13, isbn10, asin, publisher,
            binding, pages, year, originalYear, editionKey, workKey, coverId, coverURL, metadataFields, shelf, shelves, rating,
            dateAdded, reads, readCount, review, notes, owned, ownedCopies, shelfPositions, spoiler, recommendedFor,
            recommendedBy, purchaseDate, purchaseLocation, condition, conditionDescription, bcid, contributors, moods, pace,
            characterOrPlotDriven, strongCharacterDevelopment, loveableCharacters, diverseCharacters, flawedCharacters,
            contentWarnings, contentWarningDescription, enrichment, enrichmentSource, needsReview, reviewDecision, provenance,
            isbnAsWritten, titleAsWritten, identifiers

        /// The fields named in `names` as a mask of their bits (names that are no field are left out).
        static func mask(of names: Set<String>) -> UInt64 {
            zip(allCases, 0...).reduce(0) { mask, entry in names.contains(entry.0.rawValue) ? mask | 1 << entry.1 : mask }
        }

        /// The field a member name spells, compared as bytes (no `String` made), and its bit.
        static func named(_ name: MemberName) -> (Field, UInt64)? {
            let count = name.bytes.count
            guard count < byLength.count else { return nil }
            for entry in byLength[count]
            where entry.spelling.withUnsafeBytes({ memcmp($0.baseAddress!, name.bytes.baseAddress!, count) == 0 }) {
                return (entry.field, entry.bit)
            }
            return nil
        }

        /// The fields' spellings by their length in bytes, with their bits.
        private static let byLength: [[(spelling: [UInt8], field: Field, bit: UInt64)]] = {
            var table = [[(spelling: [UInt8], field: Field, bit: UInt64)]](
                repeating: [], count: 1 + allCases.map(\.rawValue.utf8.count).max()!)
            for (field, index) in zip(allCases, 0...) {
                table[field.rawValue.utf8.count].append((Array(field.rawValue.utf8), field, 1 << UInt64(index)))
            }
            return table
        }()
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

    /// The book of line `line` of `path`: the fast path, else `JSONDecoder`; a line neither accepts
    /// is `FileError.corrupt` naming the file and line.
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
    /// `true` or `false`, consumed; nil (nothing consumed) for any other value.
    mutating func boolean() -> Bool? {
        if peek() == UInt8(ascii: "t") { return rawValue().map { bytes[$0].elementsEqual("true".utf8) } ?? nil }
        if peek() == UInt8(ascii: "f") { return rawValue().flatMap { bytes[$0].elementsEqual("false".utf8) ? false : nil } }
        return nil
    }
}
