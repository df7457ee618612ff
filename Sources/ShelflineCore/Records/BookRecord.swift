/// An import format's persisted name: open, so a format declares its own in its type; a name never
/// changes once records carry it.
public struct SourceFormat: RawRepresentable, Hashable, Codable, Sendable, ExpressibleByStringLiteral {
    public let rawValue: String

    public init?(rawValue: String) {
        guard !rawValue.isEmpty else { return nil }
        self.rawValue = rawValue
    }

    public init(stringLiteral name: String) {
        precondition(!name.isEmpty, "a format's name is not empty")
        rawValue = name
    }

    public static let goodreads: SourceFormat = "goodreads", storygraph: SourceFormat = "storygraph"
    public static let librarything: SourceFormat = "librarything", generic: SourceFormat = "generic"
    public static let calibre: SourceFormat = "calibre", bookwyrm: SourceFormat = "bookwyrm"
    public static let openreads: SourceFormat = "openreads", openlibrary: SourceFormat = "openlibrary"
}

/// One reading of a book: ISO `yyyy-mm-dd` dates, either may be unknown.
public struct ReadSpan: Codable, Sendable, Hashable {
    public var start: String?
    public var end: String?
    public init(start: String? = nil, end: String? = nil) {
        self.start = start
        self.end = end
    }
}

/// A shelf with the book's position on it (Goodreads `to-read (#339)`); nil when the export gave none.
public struct ShelfPosition: Codable, Sendable, Hashable {
    public var shelf: String
    public var position: Int?
    public init(shelf: String, position: Int? = nil) {
        self.shelf = shelf
        self.position = position
    }
}

extension BookRecord {
    public init(format: SourceFormat, line: Int, byteOffset: Int = 0, byteLength: Int = 0, title: String) {
        self.format = format
        self.line = line
        self.byteOffset = byteOffset
        self.byteLength = byteLength
        self.title = title
    }
}

public enum DedupeStatus: String, Codable, Sendable {
    /// First row of this book in the file, and not in the library.
    case new
    /// `firstLine` is the same book.
    case duplicateInFile
    /// `bookId` is this book.
    case inLibrary
}

public struct DedupeMark: Codable, Sendable, Equatable {
    public var status: DedupeStatus
    /// `isbn:978…` or a `TitleIdentity.key`.
    public var key: String
    /// For `duplicateInFile`.
    public var firstLine: Int?
    /// For `inLibrary` (and duplicates of such rows).
    public var bookId: String?

    public init(status: DedupeStatus, key: String, firstLine: Int? = nil, bookId: String? = nil) {
        self.status = status
        self.key = key
        self.firstLine = firstLine
        self.bookId = bookId
    }
}

public enum MatchStatus: String, Codable, Sendable, CaseIterable {
    case matchedByIsbn, matchedBySearch, needsReview, notEnriched
}

public struct MatchCandidate: Codable, Sendable, Equatable {
    /// Edition key (`/books/OL…M`), or work key when the source only knows works.
    public var key: String
    public var workKey: String?
    public var title: String
    public var authors: [String]
    public var score: Double
    /// Why it was not accepted (`author mismatch`, `isbnTitleConflict`).
    public var reason: String?

    public init(key: String, workKey: String? = nil, title: String, authors: [String], score: Double, reason: String? = nil) {
        self.key = key
        self.workKey = workKey
        self.title = title
        self.authors = authors
        self.score = score
        self.reason = reason
    }
}

public struct MatchResult: Codable, Sendable, Equatable {
    public var status: MatchStatus
    public var editionKey: String?
    public var workKey: String?
    /// Best first, when `needsReview`.
    public var candidates: [MatchCandidate]?
    /// Why, when `notEnriched` (`no candidate`, `source unavailable`), or `isbnTitleConflict` in review.
    public var reason: String?
    /// Which source answered (`catalog`, `openlibrary`).
    public var source: String?

    public init(
        status: MatchStatus, editionKey: String? = nil, workKey: String? = nil,
        candidates: [MatchCandidate]? = nil, reason: String? = nil, source: String? = nil
    ) {
        self.status = status
        self.editionKey = editionKey
        self.workKey = workKey
        self.candidates = candidates
        self.reason = reason
        self.source = source
    }
}

/// Bibliographic data a metadata source knows about an edition.
public struct EditionMetadata: Codable, Sendable, Equatable {
    public var editionKey: String?
    public var workKey: String?
    public var title: String?
    public var subtitle: String?
    public var authors: [String]?
    public var publishers: [String]?
    public var isbn13: String?
    public var isbn10: String?
    public var pages: Int?
    public var publishDate: String?
    public var year: Int?
    public var coverId: Int?
    /// From a source whose covers are not numbered like Open Library's.
    public var coverURL: String?
    public var description: String?
    public var source: String

    public init(source: String) { self.source = source }
}

/// A row parse could not turn into a record.
public struct RejectedRow: Codable, Sendable, Equatable {
    public var line: Int
    public var reason: String
    public var byteOffset: Int
    public var byteLength: Int
    /// Repaired to UTF-8, so a user can see and fix it.
    public var raw: String
    /// The source marks the row as not to be imported (a book in its bin): counted as skipped, not
    /// rejected, and not a failed row. Absent for rejected rows.
    public var skipped: Bool?

    public init(line: Int, reason: String, byteOffset: Int, byteLength: Int, raw: String, skipped: Bool? = nil) {
        self.line = line
        self.reason = reason
        self.byteOffset = byteOffset
        self.byteLength = byteLength
        self.raw = raw
        self.skipped = skipped
    }
}
