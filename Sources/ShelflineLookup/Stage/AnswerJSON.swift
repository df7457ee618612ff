import Foundation
import ShelflineCore

/// The `match` and `metadata` members lookup splices into each line: the bytes
/// `JSONEncoder.shelfline` gives, at a fraction of its cost. A match with review candidates (their
/// scores are doubles) still goes through `JSONEncoder` (rare; tested alike).
enum AnswerJSON {
    static func metadata(_ edition: EditionMetadata) -> [UInt8] {
        var object = newObject()
        object.strings("authors", edition.authors)
        object.int("coverId", edition.coverId)
        object.string("coverURL", edition.coverURL)
        object.string("description", edition.description)
        object.string("editionKey", edition.editionKey)
        object.string("isbn10", edition.isbn10)
        object.string("isbn13", edition.isbn13)
        object.int("pages", edition.pages)
        object.string("publishDate", edition.publishDate)
        object.strings("publishers", edition.publishers)
        object.string("source", edition.source)
        object.string("subtitle", edition.subtitle)
        object.string("title", edition.title)
        object.string("workKey", edition.workKey)
        object.int("year", edition.year)
        return object.finish()
    }

    static func match(_ match: MatchResult) throws -> [UInt8] {
        guard match.candidates == nil else { return Array(try JSONEncoder.shelfline.encode(match)) }
        var object = newObject()
        object.string("editionKey", match.editionKey)
        object.string("reason", match.reason)
        object.string("source", match.source)
        object.string("status", match.status.rawValue)
        object.string("workKey", match.workKey)
        return object.finish()
    }

    /// Members must come in sorted-key order.
    private static func newObject() -> JSONObjectWriter {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(512)
        return JSONObjectWriter(out: bytes)
    }
}
