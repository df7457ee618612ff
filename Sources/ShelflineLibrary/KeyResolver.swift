import ShelflineCore

/// How records are keyed: dedupe's parameters, which merge reads too so both resolve rows alike.
public struct DedupeParameters: ConfigDefaults, Sendable, Equatable {
    /// Match rows by title and author (`TitleIdentity`) when ISBNs do not decide.
    public var titleAuthorKeys = true
    /// Compare subtitles by the title rule (`Dune` joins `Dune: Deluxe Edition`); false: whole titles must be equal.
    public var stripSubtitle = true

    public init() {}
}

public struct RecordKeys: Sendable, Equatable {
    public private(set) var isbn: String?
    /// Its `key` is what a book stores, its `mainKey` what the books that may be this one are found under.
    public private(set) var title: TitleIdentity?
    /// Only for a row with neither an ISBN nor a usable title: `row:<format>:<row id or line>`.
    public private(set) var fallback: String?
    /// Hashed on the decoding threads (`KeyedRecords`): SHA-256 was most of resolving. The title key's
    /// own hash is taken only when a book is made from it.
    private(set) var isbnHash: UInt64?, mainHash: UInt64?, fallbackHash: UInt64?
    /// The row's title, or with its ISBN what all the file's rows with that ISBN say together (`ISBNTitles`).
    private(set) var descriptor = TitleDescriptor(rawValue: 0)
    /// `descriptor` before `ISBNTitles` filled it in.
    private(set) var ownDescriptor = TitleDescriptor(rawValue: 0)
    /// The row's Goodreads `Book Id` folded to 32 bits, never 0; 0 without one (see `KeyResolver`).
    private(set) var rowTag: UInt32 = 0

    public init(_ record: BookRecord, parameters: DedupeParameters = DedupeParameters()) {
        self.init(RecordIdentity(record), parameters: parameters)
    }

    public init(_ record: RecordIdentity, parameters: DedupeParameters = DedupeParameters()) {
        isbn = BookKeys.isbnKey(isbn13: record.isbn13, isbn10: record.isbn10)
        title =
            parameters.titleAuthorKeys
            ? TitleIdentity(
                title: record.title, seriesPosition: record.seriesPosition, author: record.author,
                splitSubtitle: parameters.stripSubtitle)
            : nil
        if isbn == nil && title == nil {
            fallback = "row:\(record.format.rawValue):" + (record.rowId.map { "id:" + $0 } ?? "line:\(record.line)")
        }
        isbnHash = isbn.map(BookKeys.keyHash)
        if let title {
            mainHash = BookKeys.keyHash(title.mainKey)
            descriptor = title.descriptor
            ownDescriptor = descriptor
        }
        fallbackHash = fallback.map(BookKeys.keyHash)
        if record.format == .goodreads, let rowId = record.rowId, !rowId.isEmpty {
            let hash = BookKeys.keyHash(rowId)
            rowTag = max(1, UInt32(truncatingIfNeeded: hash ^ (hash >> 32)))
        }
    }

    func with(descriptor: TitleDescriptor) -> RecordKeys {
        var keys = self
        keys.descriptor = descriptor
        return keys
    }

    /// What a new book made from this record is named after.
    public var primary: String { isbn ?? title?.key ?? fallback! }
}

/// The record fields identity and merge's first pass need: decoding only these is several times faster.
public struct RecordIdentity: Sendable {
    public var format: SourceFormat
    public var line: Int
    public var rowId: String?
    public var byteOffset: Int
    public var byteLength: Int
    public var title: String
    public var seriesPosition: String?
    public var author: String?
    public var isbn13: String?
    public var isbn10: String?
    public var match: MatchResult?
    /// The review and notes are in parse's texts file (`RecordTexts`).
    public var textsApart: Bool?

    public init(_ record: BookRecord) {
        format = record.format
        line = record.line
        rowId = record.rowId
        byteOffset = record.byteOffset
        byteLength = record.byteLength
        title = record.title
        seriesPosition = record.seriesPosition
        author = record.author
        isbn13 = record.isbn13
        isbn10 = record.isbn10
        match = record.match
        textsApart = record.textsApart
    }
}

/// Where one record goes: its book and what that means for the import's outcomes.
public struct Resolution: Sendable, Equatable {
    public var bookId: UInt64
    public var status: DedupeStatus
    /// The key that decided (for a new book, the key it is named after).
    public var key: String
    /// For `duplicateInFile`: the file's first row that went to the same book.
    public var firstLine: Int?
    /// Keys no other book owned yet, now this book's.
    public var grantedKeys: [String]
    public var created: Bool
    /// Several books could be this row by title: it did not guess and became a book of its own.
    public var ambiguous = false
}

/// The key index dedupe and merge share: key → book, in memory bounded by distinct keys. Its rules are
/// docs/library.md's ("Book ids and identity keys"): ISBN first; by title, unless this file's row with
/// another ISBN (or another Goodreads `Book Id` and title) went to that book.
///
/// The books under a row's main key form a chain of title nodes, newest first: an equal descriptor
/// decides (the oldest), else the one compatible node, none when several are (`ambiguous`). ISBN and
/// `row:` keys belong to the first book to claim them. Not copied once in use: copies share its files.
public struct KeyResolver {
    /// 4 bytes a book in memory (`Entities`), its id spooled: with `KeyIndex`, most of dedupe's and merge's memory.
    struct Entity: Equatable {
        /// First line of the current file that resolved here (0: none yet); 30 bits, so the flags share its word.
        var firstLine: Int32
        /// A row of the current file with an ISBN went to this book.
        var isbnRowInFile: Bool
        var inLibrary: Bool
    }

    /// One book under one main key: a link of that key's chain (spooled with the ids).
    struct TitleNode {
        var entity: Int32
        var descriptor: UInt32
        /// The next (older) node, -1 at the chain's end.
        var next: Int32
        /// `ISBNTitles` filled the descriptor in: the first row whose own title says as much gives the book its key.
        var learnt = false
        /// Distinct titles of this file's rows that joined by title alone (pass without `isbnTitles`): up to
        /// two kept, 3 means more; `noteTitleTaught` asks them whether they would still have joined.
        var consultedCount: UInt8 = 0
        var consulted: (UInt32, UInt32) = (0, 0)

        /// Whether these titles' rows may not have joined had the node said `taught` then. Not asked whether it
        /// was the exact match among several: that doubled dedupe's CPU and changed no answer of bench/dedupe.
        func consultedAnswerDiffers(from taught: TitleDescriptor) -> Bool {
            guard consultedCount <= 2 else { return true }
            return [consulted.0, consulted.1].prefix(Int(consultedCount)).contains { raw in
                !taught.isCompatible(with: TitleDescriptor(rawValue: raw))
            }
        }

        /// Keeps `row` among the titles that joined here; false when kept already or its initial disagrees
        /// (no filling in makes those agree).
        mutating func consult(_ row: TitleDescriptor) -> Bool {
            guard TitleDescriptor(rawValue: descriptor).initialAgrees(with: row) else { return false }
            switch consultedCount {
            case 0: consulted.0 = row.rawValue
            case 1 where consulted.0 != row.rawValue: consulted.1 = row.rawValue
            case 2 where consulted.0 != row.rawValue && consulted.1 != row.rawValue: break
            default: return false
            }
            consultedCount += 1
            return true
        }
    }

    private var entities = Entities()
    /// Per book, its first row of this file with a source id: `rowTag << 32 | subtitlePart`; 0: none yet.
    private var fileEntries: [UInt64] = []
    private let ids: SpooledArray<UInt64>
    private let nodes: SpooledArray<TitleNode>
    /// ISBN and `row:` key → book; main key → the newest node of its chain.
    private var index = KeyIndex()
    /// Given by `use(_:)` for a second pass.
    private var isbnTitles = ISBNTitles()
    /// A row with an ISBN taught a book's title something a row that joined it by title alone would
    /// not have joined: resolving again with `isbnTitles` may answer otherwise (see `use(_:)`).
    public private(set) var needsISBNTitles = false
    private var titlesGiven = false
    /// Library books taught a title their own does not join (`War` is `War: volume 0`): earlier rows that
    /// joined them by title may be another book, which only `shelfline rebuild` can tell.
    private var libraryBooksTaught: Set<Int32> = []
    public var libraryBooksToRebuild: Int { libraryBooksTaught.count }

    /// `scratchDirectory`: where ids and title nodes are spooled (files unlinked once open).
    public init(scratchDirectory: String) throws {
        ids = try SpooledArray(directory: scratchDirectory)
        nodes = try SpooledArray(directory: scratchDirectory)
    }

    /// Frees the key index and the books (merge's fold needs neither, and takes memory of its own).
    public mutating func release() {
        index = KeyIndex()
        entities = Entities()
        fileEntries = []
        isbnTitles = ISBNTitles()
    }

    /// Resolves as if what the rows sharing an ISBN say of its title were known from the first row; call
    /// after the library is added, before the first `resolve`. Why: `Cloud Atlas` with the ISBN of `Cloud
    /// Atlas: Book Three` makes a book another `Cloud Atlas` row joins before the `Book Three` row comes.
    mutating func use(_ titles: ISBNTitles) throws {
        isbnTitles = titles
        titlesGiven = true
        try titles.forEach { isbnHash, mainHash, descriptor in
            guard let entity = index.owner(of: isbnHash),
                let own = try chain(mainHash).first(where: { $0.node.entity == entity })
            else { return }
            let known = TitleDescriptor(rawValue: own.node.descriptor)
            guard !known.isClosed else { return }
            let learnt = known.together(with: descriptor)
            guard learnt != known else { return }
            noteLibraryBookTaught(entity, known: known, becoming: learnt)
            var node = own.node
            node.descriptor = learnt.rawValue
            node.learnt = true
            try nodes.set(Int(own.number), node)
        }
    }

    public var distinctKeys: Int { index.count }
    public var libraryBooks: Int { entities.libraryBooks }

    /// An owned ISBN key stays with its owner; a book this import created resolves as `new`; title keys
    /// under one main key become one node.
    public mutating func addLibraryBook(id: UInt64, keys: [String], existedBeforeImport: Bool = true) throws {
        let entity = Int32(entities.count)
        try ids.append(id)
        entities.append(Entity(firstLine: 0, isbnRowInFile: false, inLibrary: existedBeforeImport))
        fileEntries.append(0)
        var titles: [(main: String, descriptor: TitleDescriptor)] = []
        for key in keys {
            guard let title = TitleIdentity(key: key) else {
                _ = index.claim(BookKeys.keyHash(key), for: entity)
                continue
            }
            let main = title.mainKey, descriptor = title.descriptor
            if let same = titles.firstIndex(where: { $0.main == main }) {
                // Keys the rule calls different books: joined by ISBN under another title, so closed.
                let known = titles[same].descriptor
                titles[same].descriptor = known.isCompatible(with: descriptor) ? known.filled(from: descriptor) : known.closed
            } else {
                titles.append((main, descriptor))
            }
        }
        for title in titles { try addNode(mainHash: BookKeys.keyHash(title.main), entity: entity, descriptor: title.descriptor) }
    }

    private mutating func addNode(mainHash: UInt64, entity: Int32, descriptor: TitleDescriptor, learnt: Bool = false) throws {
        let next = index.owner(of: mainHash) ?? -1
        let number = Int32(nodes.count)
        try nodes.append(TitleNode(entity: entity, descriptor: descriptor.rawValue, next: next, learnt: learnt))
        index.assign(mainHash, to: number)
    }

    private func chain(_ mainHash: UInt64) throws -> [(number: Int32, node: TitleNode)] {
        var result: [(Int32, TitleNode)] = []
        var number = index.owner(of: mainHash) ?? -1
        while number >= 0 {
            let node = try nodes.value(Int(number))
            result.append((number, node))
            number = node.next
        }
        return result
    }

    /// The book the row's title finds (see the type's rules); `ambiguous` when several could be it.
    private mutating func titleMatch(
        _ keys: RecordKeys, in chain: [(number: Int32, node: TitleNode)],
        skippingISBNBooks: Bool
    ) throws -> (entity: Int32?, ambiguous: Bool) {
        let row = keys.descriptor
        var compatible: [(entity: Int32, number: Int32)] = []
        var exact: (entity: Int32, number: Int32)?
        for (number, node) in chain {
            if skippingISBNBooks && entities[node.entity].isbnRowInFile { continue }
            if isAnotherEntry(keys, than: node.entity) { continue }
            let descriptor = TitleDescriptor(rawValue: node.descriptor)
            if descriptor == row { exact = (node.entity, number) }  // the last found is the oldest
            if descriptor.isCompatible(with: row), !compatible.contains(where: { $0.entity == node.entity }) {
                compatible.append((node.entity, number))
            }
        }
        let joined = exact ?? (compatible.count == 1 ? compatible[0] : nil)
        if let joined, !titlesGiven {
            // Noted for `noteTitleTaught`. Rows kept apart are not: what an ISBN teaches only makes them join less.
            var consulting = try nodes.value(Int(joined.number))
            if consulting.consult(row) { try nodes.set(Int(joined.number), consulting) }
        }
        if let joined { return (joined.entity, false) }
        return (nil, compatible.count > 1)
    }

    /// Another id than the book's first row of this file, and a title differing in more than a series marker.
    private func isAnotherEntry(_ keys: RecordKeys, than entity: Int32) -> Bool {
        let entry = fileEntries[Int(entity)]
        guard keys.rowTag != 0, entry != 0 else { return false }
        return UInt32(truncatingIfNeeded: entry >> 32) != keys.rowTag
            && UInt32(truncatingIfNeeded: entry) != keys.ownDescriptor.subtitlePart
    }

    /// Fills in or adds `entity`'s node under the row's main key; the row's title key when the book learnt something.
    private mutating func grantTitle(
        _ keys: RecordKeys, to entity: Int32,
        chain: [(number: Int32, node: TitleNode)]
    ) throws -> String? {
        guard let title = keys.title, let mainHash = keys.mainHash else { return nil }
        let row = keys.descriptor
        if let own = chain.first(where: { $0.node.entity == entity }) {
            // Read again: `titleMatch` may have noted the row in it.
            var node = try nodes.value(Int(own.number))
            let descriptor = TitleDescriptor(rawValue: node.descriptor)
            guard !descriptor.isClosed else { return nil }
            let compatible = descriptor.isCompatible(with: row)
            // Joined by ISBN under another book's title: closed to title joins, and the key it keeps says so.
            let taught = compatible ? descriptor.filled(from: row) : descriptor.closed
            if taught == descriptor {
                // Nothing new, unless the node learnt it from other rows and this row's own title says it.
                guard node.learnt, keys.ownDescriptor.filled(from: descriptor) == keys.ownDescriptor else { return nil }
                node.learnt = false
            } else {
                noteTitleTaught(by: keys, to: node, becoming: taught)
                node.descriptor = taught.rawValue
                node.learnt = node.learnt || (compatible && row != keys.ownDescriptor)
            }
            try nodes.set(Int(own.number), node)
            return title.key
        }
        if chain.contains(where: { TitleDescriptor(rawValue: $0.node.descriptor) == row }) { return nil }
        try addNode(mainHash: mainHash, entity: entity, descriptor: row, learnt: row != keys.ownDescriptor)
        return title.key
    }

    /// A row with an ISBN teaches `node` something that a row which joined by title alone might have refused.
    private mutating func noteTitleTaught(by keys: RecordKeys, to node: TitleNode, becoming taught: TitleDescriptor) {
        guard keys.isbnHash != nil else { return }
        if !titlesGiven, node.consultedAnswerDiffers(from: taught) { needsISBNTitles = true }
        noteLibraryBookTaught(node.entity, known: TitleDescriptor(rawValue: node.descriptor), becoming: taught)
    }

    /// Counts the book in `libraryBooksToRebuild` when a row of its old title would not join `taught`.
    private mutating func noteLibraryBookTaught(_ entity: Int32, known: TitleDescriptor, becoming taught: TitleDescriptor) {
        guard entities[entity].inLibrary, !taught.isCompatible(with: known) else { return }
        libraryBooksTaught.insert(entity)
    }

    /// Resolves one record of the file being imported (records must come in file order).
    public mutating func resolve(_ ownKeys: RecordKeys, line: Int) throws -> Resolution {
        let keys = titlesGiven ? isbnTitles.hinted(ownKeys) : ownKeys
        let isbnHash = keys.isbnHash, fallbackHash = keys.fallbackHash
        let chain = try keys.mainHash.map(self.chain) ?? []
        var found: Int32?
        var ambiguous = false
        var decidedBy = keys.primary
        if let isbnHash {
            if let owner = index.owner(of: isbnHash) {
                found = owner
            } else if let title = keys.title {
                (found, ambiguous) = try titleMatch(keys, in: chain, skippingISBNBooks: true)
                if found != nil { decidedBy = title.key }
            }
        } else if keys.title != nil {
            (found, ambiguous) = try titleMatch(keys, in: chain, skippingISBNBooks: false)
        } else if let fallbackHash {
            found = index.owner(of: fallbackHash)
        }
        let created = found == nil
        let entity: Int32
        let id: UInt64
        if let found {
            entity = found
            id = try ids.value(Int(found))
        } else {
            entity = Int32(entities.count)
            // The hash of its primary key, unless a book made from the same title key learnt more since (a
            // subtitle): this row is then `<key>#2` (`#3`, …). Owned ISBN and `row:` keys cannot meet again.
            var newId = isbnHash ?? keys.title.map { BookKeys.keyHash($0.key) } ?? fallbackHash!
            if isbnHash == nil, let title = keys.title, !chain.isEmpty {
                let taken = Set(try chain.map { try ids.value(Int($0.node.entity)) })
                var suffix = 2
                while taken.contains(newId) {
                    newId = BookKeys.keyHash(title.key + "#\(suffix)")
                    suffix += 1
                }
            }
            id = newId
            try ids.append(id)
            entities.append(Entity(firstLine: 0, isbnRowInFile: false, inLibrary: false))
            fileEntries.append(0)
        }
        if keys.rowTag != 0, fileEntries[Int(entity)] == 0 {
            fileEntries[Int(entity)] = UInt64(keys.rowTag) << 32 | UInt64(keys.ownDescriptor.subtitlePart)
        }
        var granted: [String] = []
        if let isbn = keys.isbn, let isbnHash, index.claim(isbnHash, for: entity) { granted.append(isbn) }
        if let title = try grantTitle(keys, to: entity, chain: chain) { granted.append(title) }
        if let fallback = keys.fallback, let fallbackHash, index.claim(fallbackHash, for: entity) { granted.append(fallback) }
        if keys.isbn != nil { entities[entity].isbnRowInFile = true }
        let record = entities[entity]
        if record.firstLine == 0 { entities[entity].firstLine = Int32(line) }
        return Resolution(
            bookId: id, status: record.firstLine != 0 ? .duplicateInFile : record.inLibrary ? .inLibrary : .new,
            key: decidedBy, firstLine: record.firstLine != 0 ? Int(record.firstLine) : nil, grantedKeys: granted,
            created: created, ambiguous: ambiguous)
    }
}

extension KeyResolver {
    /// 4 bytes a book in 64Ki `MappedBuffer` chunks: an array of millions grew by copying itself (merge's peak).
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
            precondition(
                UInt32(entity.firstLine) <= lineMask, "key index: line \(entity.firstLine) is beyond the index (2^30 lines)")
            return UInt32(entity.firstLine) | (entity.isbnRowInFile ? isbnRowInFileBit : 0)
                | (entity.inLibrary ? inLibraryBit : 0)
        }

        subscript(number: Int32) -> Entity {
            get {
                let chunk = Int(number) >> Self.chunkBits, index = Int(number) & ((1 << Self.chunkBits) - 1)
                let state = states[chunk].elements[index]
                return Entity(
                    firstLine: Int32(state & Self.lineMask),
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
