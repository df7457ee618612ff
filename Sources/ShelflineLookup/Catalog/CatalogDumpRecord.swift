import Foundation
import ShelflineCore

/// One parsed line of an Open Library dump (`type key revision last_modified JSON`).
enum CatalogDumpRecord {
    case edition(Edition)
    case work(Work)
    case author(key: String, name: String)
    case redirect(key: String, location: String)
    /// A type this index does not use (`/type/delete`, …): not an error.
    case ignored

    struct Edition {
        var key: String
        var title: String
        var subtitle: String?
        var isbns: [String]
        var isbn13: String?
        var isbn10: String?
        var publishers: [String]
        var cover: Int?
        var workKey: String?
        var authorKeys: [String]
        var pages: Int?
        var publishDate: String?
    }

    struct Work {
        var key: String
        var title: String?
        var authorKeys: [String]
        var description: String?
    }

    /// Why a line was skipped.
    struct Malformed: Error { var reason: String }

    private struct KeyRef: Decodable { var key: String? }
    private struct WorkAuthor: Decodable {
        var author: KeyRef?
        var key: String?
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            // `author` is usually `{"key": …}`, in old records sometimes a bare string.
            if let ref = try? container.decodeIfPresent(KeyRef.self, forKey: .author) {
                author = ref
            } else if let text = try? container.decodeIfPresent(String.self, forKey: .author) {
                author = KeyRef(key: text)
            }
            key = try? container.decodeIfPresent(String.self, forKey: .key)
        }
        enum CodingKeys: String, CodingKey { case author, key }
    }
    private enum TextValue: Decodable {
        case text(String)
        init(from decoder: any Decoder) throws {
            if let text = try? decoder.singleValueContainer().decode(String.self) {
                self = .text(text)
            } else {
                struct Typed: Decodable { var value: String? }
                self = .text(try Typed(from: decoder).value ?? "")
            }
        }
        var string: String { if case .text(let text) = self { return text }; return "" }
    }
    /// `number_of_pages` is a number, but some records hold a string.
    private enum LooseInt: Decodable {
        case value(Int?)
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int.self) {
                self = .value(number)
            } else if let text = try? container.decode(String.self) {
                self = .value(Int(text.filter(\.isNumber)))
            } else {
                self = .value(nil)
            }
        }
        var int: Int? { if case .value(let value) = self { return value }; return nil }
    }
    private struct EditionJSON: Decodable {
        var title: String?
        var subtitle: String?
        var isbn_10: [String]?
        var isbn_13: [String]?
        var publishers: [String]?
        var covers: [Int]?
        var works: [KeyRef]?
        var authors: [KeyRef]?
        var number_of_pages: LooseInt?
        var publish_date: String?
    }
    private struct WorkJSON: Decodable {
        var title: String?
        var authors: [WorkAuthor]?
        var description: TextValue?
    }
    private struct AuthorJSON: Decodable { var name: String? }
    private struct RedirectJSON: Decodable { var location: String? }

    /// Parses one dump line; throws `Malformed` for a line to skip and count.
    static func parse(_ line: UnsafeRawBufferPointer, decoder: JSONDecoder) throws -> CatalogDumpRecord {
        // Five tab-separated columns; the JSON is the rest of the line after the fourth tab.
        var tabs: [Int] = []
        for index in line.indices where line[index] == 9 {
            tabs.append(index)
            if tabs.count == 4 { break }
        }
        guard tabs.count == 4 else { throw Malformed(reason: "expected 5 tab-separated columns") }
        let type = String(decoding: UnsafeRawBufferPointer(rebasing: line[..<tabs[0]]), as: UTF8.self)
        let key = String(decoding: UnsafeRawBufferPointer(rebasing: line[(tabs[0] + 1)..<tabs[1]]), as: UTF8.self)
        guard !key.isEmpty else { throw Malformed(reason: "empty key") }
        let json = Data(UnsafeRawBufferPointer(rebasing: line[(tabs[3] + 1)...]))
        do {
            switch type {
            case "/type/edition":
                let value = try decoder.decode(EditionJSON.self, from: json)
                guard let title = value.title?.trimmingCharacters(in: .whitespaces), !title.isEmpty else {
                    throw Malformed(reason: "edition without title")
                }
                var isbns: [String] = []
                var isbn13: String?, isbn10: String?
                for raw in value.isbn_13 ?? [] {
                    if let canonical = ISBN.canonical13(raw) {
                        isbns.append(canonical)
                        isbn13 = isbn13 ?? canonical
                    }
                }
                for raw in value.isbn_10 ?? [] {
                    if let canonical = ISBN.canonical13(raw) {
                        isbns.append(canonical)
                        isbn10 = isbn10 ?? raw.filter { $0.isNumber || $0 == "X" || $0 == "x" }.uppercased()
                        isbn13 = isbn13 ?? canonical
                    }
                }
                var seen = Set<String>()
                isbns = isbns.filter { seen.insert($0).inserted }
                var authorKeys: [String] = []
                for ref in value.authors ?? [] {
                    if let key = ref.key, !authorKeys.contains(key) { authorKeys.append(key) }
                }
                // Without authors of its own or a work to take them from, no match could ever be
                // accepted on it (authors decide): skipped and counted, like a line without a title.
                guard !authorKeys.isEmpty || value.works?.first?.key != nil else {
                    throw Malformed(reason: "edition without authors or work")
                }
                return .edition(Edition(
                    key: key, title: title, subtitle: value.subtitle, isbns: isbns, isbn13: isbn13, isbn10: isbn10,
                    publishers: value.publishers ?? [], cover: value.covers?.first(where: { $0 > 0 }),
                    workKey: value.works?.first?.key, authorKeys: authorKeys, pages: value.number_of_pages?.int,
                    publishDate: value.publish_date))
            case "/type/work":
                let value = try decoder.decode(WorkJSON.self, from: json)
                var authorKeys: [String] = []
                for entry in value.authors ?? [] {
                    if let key = entry.author?.key ?? entry.key, !authorKeys.contains(key) { authorKeys.append(key) }
                }
                let description = value.description?.string
                return .work(Work(key: key, title: value.title, authorKeys: authorKeys,
                                  description: description?.isEmpty == false ? description : nil))
            case "/type/author":
                let value = try decoder.decode(AuthorJSON.self, from: json)
                guard let name = value.name?.trimmingCharacters(in: .whitespaces), !name.isEmpty else {
                    throw Malformed(reason: "author without name")
                }
                return .author(key: key, name: name)
            case "/type/redirect":
                let value = try decoder.decode(RedirectJSON.self, from: json)
                guard let location = value.location, !location.isEmpty else { throw Malformed(reason: "redirect without location") }
                return .redirect(key: key, location: location)
            default:
                return .ignored
            }
        } catch let error as Malformed {
            throw error
        } catch {
            throw Malformed(reason: "invalid JSON")
        }
    }
}
