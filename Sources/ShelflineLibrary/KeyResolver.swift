import ShelflineCore

/// How records are keyed: the `dedupe` stage's parameters, which merge reads too so both stages
/// resolve rows to books the same way.
public struct DedupeParameters: Codable, Sendable, Equatable {
    /// Match rows by normalised title + author surname when ISBNs do not decide.
    public var titleAuthorKeys = true
    /// Drop a subtitle after `:` from titles before keying (`Dune: Deluxe Edition` = `Dune`).
    public var stripSubtitle = true

    public init() {}

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        titleAuthorKeys = try container.decodeIfPresent(Bool.self, forKey: .titleAuthorKeys) ?? true
        stripSubtitle = try container.decodeIfPresent(Bool.self, forKey: .stripSubtitle) ?? true
    }
}

/// The identity keys of one record.
public struct RecordKeys: Sendable, Equatable {
    public private(set) var isbn: String?
    public private(set) var titleAuthor: String?
    /// Used only when a row has neither an ISBN nor a usable title: `row:<format>:<row id or line>`.
    public private(set) var fallback: String?
    /// `BookKeys.keyHash` of each key, made with the keys (on dedupe's and merge's decoding
    /// thread, `KeyedRecords`): SHA-256 was most of resolving.
    private(set) var isbnHash: UInt64?, titleAuthorHash: UInt64?, fallbackHash: UInt64?

    public init(_ record: BookRecord, parameters: DedupeParameters = DedupeParameters()) {
        self.init(RecordIdentity(record), parameters: parameters)
    }

    public init(_ record: RecordIdentity, parameters: DedupeParameters = DedupeParameters()) {
        isbn = BookKeys.isbnKey(isbn13: record.isbn13, isbn10: record.isbn10)
        titleAuthor = parameters.titleAuthorKeys
            ? BookKeys.titleAuthorKey(title: record.titleBase ?? record.title, author: record.author,
                                      stripSubtitle: parameters.stripSubtitle)
            : nil
        if isbn == nil && titleAuthor == nil {
            fallback = "row:\(record.format.rawValue):" + (record.rowId.map { "id:" + $0 } ?? "line:\(record.line)")
        }
        isbnHash = isbn.map(BookKeys.keyHash)
        titleAuthorHash = titleAuthor.map(BookKeys.keyHash)
        fallbackHash = fallback.map(BookKeys.keyHash)
    }

    /// The key a new book made from this record is named after.
    public var primary: String { isbn ?? titleAuthor ?? fallback! }
}

/// The fields of a record that decide its identity, and what merge's first pass needs: decoding
/// only these is several times faster than decoding a whole `BookRecord`.
public struct RecordIdentity: Decodable, Sendable {
    public var format: SourceFormat
    public var line: Int
    public var rowId: String?
    public var byteOffset: Int
    public var byteLength: Int
    public var title: String
    public var titleBase: String?
    public var author: String?
    public var isbn13: String?
    public var isbn10: String?
    public var match: MatchResult?
    /// Whether the line already carries a dedupe mark (then it is re-encoded, not spliced).
    public var dedupe: DedupeMark?

    public init(_ record: BookRecord) {
        format = record.format
        line = record.line
        rowId = record.rowId
        byteOffset = record.byteOffset
        byteLength = record.byteLength
        title = record.title
        titleBase = record.titleBase
        author = record.author
        isbn13 = record.isbn13
        isbn10 = record.isbn10
        match = record.match
        dedupe = record.dedupe
    }
}

/// Where one record goes: its book and what that means for the import's outcomes.
public struct Resolution: Sendable, Equatable {
    public var bookId: UInt64
    public var status: DedupeStatus
    /// The key that decided (or, for a new book, the key it is named after).
    public var key: String
    /// First row of this file that went to the same book, for `duplicateInFile`.
    public var firstLine: Int?
    /// Keys this record gives its book (keys no other book owns yet).
    public var grantedKeys: [String]
    /// The book did not exist before this import.
    public var created: Bool
}

/// The key index dedupe and merge share: key → book, in memory bounded by distinct keys.
///
/// Rules (docs/library.md): a row with an ISBN joins the book owning that ISBN key; failing that,
/// the book owning its title+author key, unless a row *of this same file* with another ISBN already
/// went to that book (one export listing two editions keeps them as two books; two exports that
/// picked different editions of the same title and author merge, the book owning both ISBNs).
/// A row without ISBN joins the owner of its title+author key. Each key is owned by one book: the
/// first to claim it. Keys hash to 64 bits; ids are 64-bit too.
///
/// A resolver is not copied once in use: its copies would share the file of its books' ids.
public struct KeyResolver {
    /// What the resolver keeps of a book in memory: 4 bytes (`Entities`); its id is in a
    /// `BookIdFile`. With `KeyIndex`, most of dedupe's and merge's memory at 2,000,000 rows (issue 12).
    struct Entity: Equatable {
        /// First line of the current file that resolved here (0: none yet). 30 bits, so the flags
        /// share its word: a file of more than a billion lines is beyond the index.
        var firstLine: Int32
        /// A row of the current file with an ISBN went to this book.
        var isbnRowInFile: Bool
        var inLibrary: Bool
    }

    private var entities = Entities()
    private let ids: BookIdFile
    private var index = KeyIndex()
    public let parameters: DedupeParameters

    /// `scratchDirectory`: where the books' ids are spooled (a file unlinked once open; the stage's
    /// output or work directory).
    public init(parameters: DedupeParameters = DedupeParameters(), scratchDirectory: String) throws {
        self.parameters = parameters
        ids = try BookIdFile(directory: scratchDirectory)
    }

    /// Frees the key index and the books (merge's fold needs neither, and takes memory of its own).
    public mutating func release() {
        index = KeyIndex()
        entities = Entities()
    }

    public var distinctKeys: Int { index.count }
    public var libraryBooks: Int { entities.libraryBooks }

    /// Registers a library book and the keys it owns (a key already owned stays with its owner).
    /// A book the current import itself created (`existedBeforeImport` false) resolves as `new`.
    public mutating func addLibraryBook(id: UInt64, keys: [String], existedBeforeImport: Bool = true) throws {
        let entity = Int32(entities.count)
        try ids.append(id)
        entities.append(Entity(firstLine: 0, isbnRowInFile: false, inLibrary: existedBeforeImport))
        for key in keys { _ = index.claim(BookKeys.keyHash(key), for: entity) }
    }

    /// Resolves one record of the file being imported (records must come in file order).
    public mutating func resolve(_ keys: RecordKeys, line: Int) throws -> Resolution {
        let isbnHash = keys.isbnHash, titleAuthorHash = keys.titleAuthorHash, fallbackHash = keys.fallbackHash
        var found: Int32?
        var decidedBy = keys.primary
        if let isbnHash {
            if let owner = index.owner(of: isbnHash) {
                found = owner
            } else if let titleAuthor = keys.titleAuthor, let titleAuthorHash, let owner = index.owner(of: titleAuthorHash),
                !entities[owner].isbnRowInFile
            {
                found = owner
                decidedBy = titleAuthor
            }
        } else if let titleAuthorHash {
            found = index.owner(of: titleAuthorHash)
        } else if let fallbackHash {
            found = index.owner(of: fallbackHash)
        }
        let created = found == nil
        let entity: Int32
        let id: UInt64
        if let found {
            entity = found
            id = try ids.id(Int(found))
        } else {
            entity = Int32(entities.count)
            // A new book's id is the hash of its primary key (`BookKeys.bookId(for:)`).
            id = isbnHash ?? titleAuthorHash ?? fallbackHash!
            try ids.append(id)
            entities.append(Entity(firstLine: 0, isbnRowInFile: false, inLibrary: false))
        }
        var granted: [String] = []
        for (key, hash) in [(keys.isbn, isbnHash), (keys.titleAuthor, titleAuthorHash), (keys.fallback, fallbackHash)] {
            guard let key, let hash else { continue }
            if index.claim(hash, for: entity) { granted.append(key) }
        }
        if keys.isbn != nil { entities[entity].isbnRowInFile = true }
        let record = entities[entity]
        if record.firstLine == 0 {
            entities[entity].firstLine = Int32(line)
            return Resolution(bookId: id, status: record.inLibrary ? .inLibrary : .new, key: decidedBy,
                              firstLine: nil, grantedKeys: granted, created: created)
        }
        return Resolution(bookId: id, status: .duplicateInFile, key: decidedBy, firstLine: Int(record.firstLine),
                          grantedKeys: granted, created: created)
    }
}

extension KeyResolver {
    /// The books' states, numbered from 0, in chunks of 64Ki (`MappedBuffer`s): an array of
    /// millions of them grew by copying itself into one twice its size, both held at once (issue
    /// 12: peak memory at 2,000,000 rows). 4 bytes a book: the first line and the two flags (the
    /// id, 8 more, is in the `BookIdFile`).
    struct Entities {
        private static let chunkBits = 16
        private static let lineMask: UInt32 = (1 << 30) - 1
        private static let isbnRowInFileBit: UInt32 = 1 << 30
        private static let inLibraryBit: UInt32 = 1 << 31
        private var states: [MappedBuffer<UInt32>] = []
        private(set) var count = 0

        mutating func append(_ entity: Entity) {
            if count >> Self.chunkBits == states.count {
                states.append(MappedBuffer(count: 1 << Self.chunkBits))
            }
            count += 1
            self[Int32(count - 1)] = entity
        }

        private static func state(of entity: Entity) -> UInt32 {
            precondition(UInt32(entity.firstLine) <= lineMask, "key index: line \(entity.firstLine) is beyond the index (2^30 lines)")
            return UInt32(entity.firstLine) | (entity.isbnRowInFile ? isbnRowInFileBit : 0) | (entity.inLibrary ? inLibraryBit : 0)
        }

        subscript(number: Int32) -> Entity {
            get {
                let chunk = Int(number) >> Self.chunkBits, index = Int(number) & ((1 << Self.chunkBits) - 1)
                let state = states[chunk].elements[index]
                return Entity(firstLine: Int32(state & Self.lineMask),
                              isbnRowInFile: state & Self.isbnRowInFileBit != 0, inLibrary: state & Self.inLibraryBit != 0)
            }
            set {
                precondition(number < count, "key index: book \(number) of \(count)")
                let chunk = Int(number) >> Self.chunkBits, index = Int(number) & ((1 << Self.chunkBits) - 1)
                if !isKnownUniquelyReferenced(&states[chunk]) { states[chunk] = states[chunk].copy() }
                states[chunk].elements[index] = Self.state(of: newValue)
            }
        }

        var libraryBooks: Int { (0..<count).count(where: { self[Int32($0)].inLibrary }) }
    }
}
