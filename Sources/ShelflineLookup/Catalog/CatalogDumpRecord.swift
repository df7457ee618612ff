import Foundation
import ShelflineCore

/// One line of an Open Library dump (`type key revision last_modified JSON`), read with
/// `JSONScanner` (JSONDecoder was most of the build's time). The number in a key (`/books/OL123M`
/// → 123) is the row id, so the primary key rejects repeats without keys held in memory; another
/// shape gets a negative hashed id, its text kept in `oddKeys`.
enum CatalogDumpRecord {
    case edition(Edition)
    case work(Work)
    case author(id: Int, name: String)
    /// Other redirects are not used.
    case authorRedirect(id: Int, target: Int)
    /// A type this index does not use (`/type/delete`, …): not an error.
    case ignored

    struct Edition {
        var id: Int
        var title: String
        var oddKeys: [OddKey]
        /// Computed on the parsing thread.
        var titleHash: Int
        var subtitle: String?
        /// Canonical ISBN-13 numbers, without repeats.
        var isbns: [Int]
        var isbn13: String?
        var isbn10: String?
        var publishers: [String]
        var cover: Int?
        var work: Int?
        var authors: [Int]
        var pages: Int?
        var publishDate: String?
    }

    struct OddKey {
        var id: Int
        var key: String
    }

    struct Work {
        var id: Int
        var oddKey: OddKey?
        var authors: [Int]
        var description: StoredDescription?
    }

    struct Malformed: Error { var reason: String }

    /// The raw value is the key's last letter: `M`, `W`, `A`.
    enum KeyKind: UInt8 {
        case edition = 0x4D, work = 0x57, author = 0x41

        var prefix: StaticString {
            switch self {
            case .edition: "/books/OL"
            case .work: "/works/OL"
            case .author: "/authors/OL"
            }
        }

        /// The exact inverse of `number(_:)`.
        func key(_ id: Int) -> String { "\(prefix)\(id)\(Character(Unicode.Scalar(rawValue)))" }

        /// Nil for any other shape, leading zeros included, so that `key(number(k)) == k`.
        func number(_ key: UnsafeRawBufferPointer) -> Int? {
            let prefixCount = prefix.utf8CodeUnitCount
            guard key.count > prefixCount + 1, key.count <= prefixCount + 16, key[key.count - 1] == rawValue else { return nil }
            for offset in 0..<prefixCount where key[offset] != prefix.utf8Start[offset] { return nil }
            let digits = prefixCount..<(key.count - 1)
            guard key[digits.lowerBound] != UInt8(ascii: "0") || digits.count == 1 else { return nil }
            var value = 0
            for position in digits {
                let byte = key[position]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }

        func number(_ key: String) -> Int? {
            var key = key
            return key.withUTF8 { number(UnsafeRawBufferPointer($0)) }
        }

        /// Else a negative hash (a collision, 1 in 10^19 per pair, makes a key look like a duplicate).
        func id(_ key: UnsafeRawBufferPointer) -> Int {
            if let number = number(key) { return number }
            let hash = CatalogIndex.fnv1a([rawValue] + Array(key))
            return -Int(hash >> 1) - 1
        }

        func id(_ key: String) -> Int {
            var key = key
            return key.withUTF8 { id(UnsafeRawBufferPointer($0)) }
        }
    }

    /// Throws `Malformed` for a line to skip and count; `descriptions` is the thread's own.
    static func parse(_ line: UnsafeRawBufferPointer, descriptions: StoredDescription.Compressor) throws(Malformed)
        -> CatalogDumpRecord
    {
        func tab(after start: Int) -> Int? { line.index(ofByte: 9, in: start..<line.count) }
        guard let typeEnd = tab(after: 0), let keyEnd = tab(after: typeEnd + 1), let revisionEnd = tab(after: keyEnd + 1),
            let modifiedEnd = tab(after: revisionEnd + 1)
        else { throw Malformed(reason: "expected 5 tab-separated columns") }
        let type = UnsafeRawBufferPointer(rebasing: line[..<typeEnd])
        let key = UnsafeRawBufferPointer(rebasing: line[(typeEnd + 1)..<keyEnd])
        guard !key.isEmpty else { throw Malformed(reason: "empty key") }
        var scanner = JSONScanner(UnsafeRawBufferPointer(rebasing: line[(modifiedEnd + 1)...]))
        scanner.skipWhitespace()
        switch MemberName(bytes: type) {
        case "/type/edition":
            var edition = try edition(id: KeyKind.edition.id(key), &scanner)
            if edition.id < 0 { edition.oddKeys.append(OddKey(id: edition.id, key: String(decoding: key, as: UTF8.self))) }
            return .edition(edition)
        case "/type/work":
            var work = try work(id: KeyKind.work.id(key), &scanner, descriptions: descriptions)
            if work.id < 0 { work.oddKey = OddKey(id: work.id, key: String(decoding: key, as: UTF8.self)) }
            return .work(work)
        case "/type/author":
            let id = KeyKind.author.id(key)
            var name: String?
            try object(&scanner) { scanner, member in
                if member == "name" { return scanner.readString(&name) }
                return scanner.skipValue(depth: 1)
            }
            guard let name = name?.trimmedSpaces, !name.isEmpty else { throw Malformed(reason: "author without name") }
            return .author(id: id, name: name)
        case "/type/redirect":
            var location: String?
            try object(&scanner) { scanner, member in
                if member == "location" { return scanner.readString(&location) }
                return scanner.skipValue(depth: 1)
            }
            guard let location, !location.isEmpty else { throw Malformed(reason: "redirect without location") }
            guard key.starts(with: "/authors/".utf8) else { return .ignored }
            return .authorRedirect(id: KeyKind.author.id(key), target: KeyKind.author.id(location))
        default:
            return .ignored
        }
    }

    private static func edition(id: Int, _ scanner: inout JSONScanner) throws(Malformed) -> Edition {
        var title: String?, subtitle: String?, publishDate: String?
        var isbn13s: [String] = [], isbn10s: [String] = [], publishers: [String] = []
        var covers: [Int] = [], works: [String] = [], authors: [String] = []
        var pages: Int?
        try object(&scanner) { scanner, member in
            switch member {
            case "title": return scanner.readString(&title)
            case "subtitle": return scanner.readString(&subtitle)
            case "publish_date": return scanner.readString(&publishDate)
            case "isbn_13": return scanner.strings { isbn13s.append($0) }
            case "isbn_10": return scanner.strings { isbn10s.append($0) }
            case "publishers": return scanner.strings { publishers.append($0) }
            case "covers":
                return scanner.elements { scanner in
                    let start = scanner.index
                    if let number = scanner.int() { covers.append(number); return true }
                    return scanner.index != start || scanner.skipValue(depth: 2)  // a fraction, or another value
                }
            case "works": return scanner.keyReferences { works.append($0) }
            case "authors": return scanner.keyReferences { authors.append($0) }
            case "number_of_pages":
                // A number, but some records hold a string ("320 p.").
                if scanner.peek() == UInt8(ascii: "\"") {
                    var text: String?
                    guard scanner.readString(&text) else { return false }
                    pages = text.flatMap { Int($0.filter { $0.isASCII && $0.isNumber }.prefix(18)) }
                } else {
                    let start = scanner.index
                    pages = scanner.int()
                    if pages == nil && scanner.index == start { return scanner.skipValue(depth: 1) }
                }
            default: return scanner.skipValue(depth: 1)
            }
            return true
        }
        guard let title = title?.trimmedSpaces, !title.isEmpty else { throw Malformed(reason: "edition without title") }
        var isbns: [Int] = []
        var isbn13: String?, isbn10: String?
        func add(_ raw: String, isTen: Bool) {
            guard let canonical = ISBN.canonical13(raw), let number = Int(canonical) else { return }
            if !isbns.contains(number) { isbns.append(number) }
            if isTen { isbn10 = isbn10 ?? raw.filter { $0.isNumber || $0 == "X" || $0 == "x" }.uppercased() }
            isbn13 = isbn13 ?? canonical
        }
        for raw in isbn13s { add(raw, isTen: false) }
        for raw in isbn10s { add(raw, isTen: true) }
        var authorIDs: [Int] = []
        for key in authors {
            let id = KeyKind.author.id(key)
            if !authorIDs.contains(id) { authorIDs.append(id) }
        }
        let work = works.first.map { KeyKind.work.id($0) }
        var oddKeys: [OddKey] = []
        if let work, work < 0, let key = works.first { oddKeys.append(OddKey(id: work, key: key)) }
        // Without authors, no match could ever be accepted on it.
        guard !authorIDs.isEmpty || work != nil else { throw Malformed(reason: "edition without authors or work") }
        return Edition(
            id: id, title: title, oddKeys: oddKeys, titleHash: CatalogIndex.titleHash(TextNormalizer.titleKey(title)),
            subtitle: subtitle, isbns: isbns, isbn13: isbn13, isbn10: isbn10,
            publishers: publishers, cover: covers.first(where: { $0 > 0 }), work: work, authors: authorIDs,
            pages: pages, publishDate: publishDate)
    }

    private static func work(id: Int, _ scanner: inout JSONScanner, descriptions: StoredDescription.Compressor) throws(Malformed)
        -> Work
    {
        var authors: [Int] = []
        var description: String?
        try object(&scanner) { scanner, member in
            switch member {
            case "authors":
                // `[{"author": {"key": …}}]`; in old records a bare string, or the entry is `{"key": …}`.
                return scanner.elements { scanner in
                    guard scanner.peek() == UInt8(ascii: "{") else { return scanner.skipValue(depth: 2) }
                    var key: String?
                    let valid = scanner.rawMembers { scanner, member in
                        switch member {
                        case "author":
                            guard scanner.peek() == UInt8(ascii: "{") else { return scanner.readString(&key) }
                            return scanner.rawMembers { scanner, member in
                                if member == "key" { return scanner.readString(&key) }
                                return scanner.skipValue(depth: 3)
                            }
                        case "key":
                            // The entry's own key counts only when `author` gave none.
                            var own: String?
                            guard scanner.readString(&own) else { return false }
                            key = key ?? own
                        default:
                            return scanner.skipValue(depth: 2)
                        }
                        return true
                    }
                    if let key {
                        let id = KeyKind.author.id(key)
                        if !authors.contains(id) { authors.append(id) }
                    }
                    return valid
                }
            case "description":
                // Or `{"type": "/type/text", "value": …}`.
                guard scanner.peek() == UInt8(ascii: "{") else { return scanner.readString(&description) }
                return scanner.rawMembers { scanner, member in
                    if member == "value" { return scanner.readString(&description) }
                    return scanner.skipValue(depth: 2)
                }
            default:
                return scanner.skipValue(depth: 1)
            }
        }
        return Work(
            id: id, oddKey: nil, authors: authors,
            description: description.flatMap { $0.isEmpty ? nil : descriptions.store($0) })
    }

    /// Any syntax error, or text after the object, is "invalid JSON".
    private static func object(_ scanner: inout JSONScanner, _ member: (inout JSONScanner, MemberName) -> Bool) throws(Malformed)
    {
        guard scanner.rawMembers(member), scanner.atEnd() else { throw Malformed(reason: "invalid JSON") }
    }
}

extension JSONScanner {
    /// `null` and other types leave `value` as it was (skipped, syntax checked). False on a syntax error.
    mutating func readString(_ value: inout String?) -> Bool {
        if null() { return true }
        guard peek() == UInt8(ascii: "\"") else { return skipValue(depth: 1) }
        guard let text = string() else { return false }
        value = text
        return true
    }

    /// `null` is an empty array, any other value is skipped. False on a syntax error.
    mutating func elements(_ element: (inout JSONScanner) -> Bool) -> Bool {
        guard peek() == UInt8(ascii: "[") else { return null() || skipValue(depth: 1) }
        return array(element)
    }

    mutating func strings(_ body: (String) -> Void) -> Bool {
        elements { scanner in
            var text: String?
            guard scanner.readString(&text) else { return false }
            if let text { body(text) }
            return true
        }
    }

    mutating func keyReferences(_ body: (String) -> Void) -> Bool {
        elements { scanner in
            guard scanner.peek() == UInt8(ascii: "{") else { return scanner.skipValue(depth: 2) }
            return scanner.rawMembers { scanner, member in
                guard member == "key" else { return scanner.skipValue(depth: 3) }
                var key: String?
                guard scanner.readString(&key) else { return false }
                if let key { body(key) }
                return true
            }
        }
    }
}

extension String {
    /// `trimmingCharacters(in: .whitespaces)` without its cost when there is nothing to trim.
    var trimmedSpaces: String {
        guard let first = utf8.first, let last = utf8.last else { return self }
        let plain = { (byte: UInt8) in byte > 0x20 && byte < 0x80 }
        return plain(first) && plain(last) ? self : trimmingCharacters(in: .whitespaces)
    }
}
