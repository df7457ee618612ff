import Foundation
import ShelflineCore

/// The JSON of the `match` and `metadata` members lookup splices into each line, written byte by
/// byte: the bytes `JSONEncoder.shelfline` gives (sorted keys, absent values left out, strings by
/// Core's one escaper, `JSONString`). Foundation's encoder for them was 6–8 % of lookup's CPU
/// against a 1,000,000-edition catalog (perf, bench/lookup part b). A match carrying review
/// candidates, whose scores are doubles, still goes through `JSONEncoder` (rare; tested alike).
enum AnswerJSON {
    static func metadata(_ edition: EditionMetadata) -> [UInt8] {
        var object = Object()
        object.strings("authors", edition.authors)
        object.integer("coverId", edition.coverId)
        object.string("description", edition.description)
        object.string("editionKey", edition.editionKey)
        object.string("isbn10", edition.isbn10)
        object.string("isbn13", edition.isbn13)
        object.integer("pages", edition.pages)
        object.string("publishDate", edition.publishDate)
        object.strings("publishers", edition.publishers)
        object.string("source", edition.source)
        object.string("subtitle", edition.subtitle)
        object.string("title", edition.title)
        object.string("workKey", edition.workKey)
        object.integer("year", edition.year)
        return object.finished()
    }

    static func match(_ match: MatchResult) throws -> [UInt8] {
        guard match.candidates == nil else { return Array(try JSONEncoder.shelfline.encode(match)) }
        var object = Object()
        object.string("editionKey", match.editionKey)
        object.string("reason", match.reason)
        object.string("source", match.source)
        object.string("status", match.status.rawValue)
        object.string("workKey", match.workKey)
        return object.finished()
    }

    /// One JSON object's bytes; members must come in sorted-key order.
    private struct Object {
        private var bytes: [UInt8] = [UInt8(ascii: "{")]

        init() { bytes.reserveCapacity(512) }

        private mutating func key(_ name: StaticString) {
            if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            bytes.append(contentsOf: "\":".utf8)
        }

        mutating func string(_ name: StaticString, _ value: String?) {
            guard let value else { return }
            key(name)
            JSONString.append(value, to: &bytes)
        }

        mutating func strings(_ name: StaticString, _ values: [String]?) {
            guard let values else { return }
            key(name)
            bytes.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                JSONString.append(value, to: &bytes)
            }
            bytes.append(UInt8(ascii: "]"))
        }

        mutating func integer(_ name: StaticString, _ value: Int?) {
            guard let value else { return }
            key(name)
            bytes.append(contentsOf: String(value).utf8)
        }

        consuming func finished() -> [UInt8] {
            bytes.append(UInt8(ascii: "}"))
            return bytes
        }
    }
}
