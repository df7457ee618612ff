import ShelflineCore

/// How records are keyed: the `dedupe` stage's parameters, which merge reads too so both stages
/// resolve rows to books the same way.
public struct DedupeParameters: Codable, Sendable, Equatable {
    /// Match rows by title and author (`TitleIdentity`) when ISBNs do not decide.
    public var titleAuthorKeys = true
    /// Compare subtitles by the title rule (`Dune` joins `Dune: Deluxe Edition`; two different
    /// subtitles are two books). False: the whole title must be equal.
    public var stripSubtitle = true

    public init() {}

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        titleAuthorKeys = try container.decodeIfPresent(Bool.self, forKey: .titleAuthorKeys) ?? titleAuthorKeys
        stripSubtitle = try container.decodeIfPresent(Bool.self, forKey: .stripSubtitle) ?? stripSubtitle
    }
}

/// The identity keys of one record.
public struct RecordKeys: Sendable, Equatable {
    public private(set) var isbn: String?
    /// The title identity (`TitleIdentity`): its `key` is what a book stores, its `mainKey` what
    /// the books that may be this one are found under.
    public private(set) var title: TitleIdentity?
    /// Used only when a row has neither an ISBN nor a usable title: `row:<format>:<row id or line>`.
    public private(set) var fallback: String?
    /// `BookKeys.keyHash` of each key, made with the keys (on dedupe's and merge's decoding
    /// thread, `KeyedRecords`): SHA-256 was most of resolving.
    /// The title key's own hash is taken only when a book is made from it (`KeyResolver.resolve`).
    private(set) var isbnHash: UInt64?, mainHash: UInt64?, fallbackHash: UInt64?
    /// What the row's title says, or, with its ISBN, what every row of the file carrying that ISBN
    /// says together (`ISBNTitles`): `Cloud Atlas` with the ISBN of `Cloud Atlas: Book Three`.
    private(set) var descriptor = TitleDescriptor(rawValue: 0)
    /// What the row's own title says (`descriptor` before `ISBNTitles` filled it in).
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

    /// These keys with the title descriptor `descriptor` (what the rows sharing the ISBN say).
    func with(descriptor: TitleDescriptor) -> RecordKeys {
        var keys = self
        keys.descriptor = descriptor
        return keys
    }

    /// The key a new book made from this record is named after.
    public var primary: String { isbn ?? title?.key ?? fallback! }
}

/// The fields of a record that decide its identity, and what merge's first pass needs: decoding
/// only these is several times faster than decoding a whole `BookRecord`.
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
    /// The record's review and notes are in parse's texts file (merge joins them: `RecordTexts`).
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
    /// The key that decided (or, for a new book, the key it is named after).
    public var key: String
    /// First row of this file that went to the same book, for `duplicateInFile`.
    public var firstLine: Int?
    /// Keys this record gives its book (keys no other book owns yet).
    public var grantedKeys: [String]
    /// The book did not exist before this import.
    public var created: Bool
    /// Several books could be this row by title (one main title and author, several books with
    /// other subtitles, a row with none): the row did not guess and became a book of its own.
    public var ambiguous = false
}

/// The key index dedupe and merge share: key → book, in memory bounded by distinct keys.
///
/// Rules (docs/library.md): a row with an ISBN joins the book owning that ISBN key; failing that,
/// the book its title identity finds, unless a row *of this same file* with another ISBN already
/// went to that book (one export listing two editions keeps them as two books; two exports that
/// picked different editions of the same title and author merge, the book owning both ISBNs).
/// A row without ISBN joins the book its title identity finds.
///
/// Two rows of one Goodreads file with different `Book Id`s are the reader's two entries: a row
/// joins a book by title alone only when the book's first row of this file with an id has the
/// same id or the same title apart from a series marker (the same subtitle part, or none on both).
/// `Boarderlines` (id A) and `Boarderlines - Fuck You Happiness` (id B) stay two books; `Dune
/// (Dune Chronicles, #1)` and `Dune` with two ids (two editions) fold. An ISBN that both rows carry
/// still joins them. (LibraryThing's `Book Id` names a copy: a paperback and a Kindle copy of one
/// book are two ids, and the title rule folds them. StoryGraph's rows have no id.)
///
/// Finding a book by title (`TitleIdentity`, Core's one rule): the books under the row's main key
/// (main title + surname) form a chain of title nodes (book, `TitleDescriptor`), newest first. A
/// node whose descriptor equals the row's decides (the oldest such); otherwise the row joins the
/// one book whose node is compatible, and none when several are (it does not guess: a book of its
/// own, counted `ambiguous`). A row that joins a book fills in what its node lacked (a subtitle,
/// a series number), so a later row with another subtitle is another book. A book joined by ISBN
/// under a title the rule calls another book is closed to title joins (`TitleDescriptor.closed`).
///
/// ISBN and `row:` keys are owned by one book each, the first to claim them. Keys hash to 64 bits;
/// ids are 64-bit too. A resolver is not copied once in use: its copies would share its files.
public struct KeyResolver {
    /// What the resolver keeps of a book in memory: 4 bytes (`Entities`); its id is in a
    /// `SpooledArray`. With `KeyIndex`, most of dedupe's and merge's memory at 2,000,000 rows.
    struct Entity: Equatable {
        /// First line of the current file that resolved here (0: none yet). 30 bits, so the flags
        /// share its word: a file of more than a billion lines is beyond the index.
        var firstLine: Int32
        /// A row of the current file with an ISBN went to this book.
        var isbnRowInFile: Bool
        var inLibrary: Bool
    }

    /// One book under one main key: a link of that key's chain (spooled with the ids).
    struct TitleNode {
        var entity: Int32
        var descriptor: UInt32
        /// The next (older) node of the chain, -1 at its end.
        var next: Int32
        /// The descriptor says more than the book's stored title keys (`ISBNTitles` filled it in):
        /// the first row whose own title says as much gives the book its key.
        var learnt = false
        /// How many different titles (descriptors) of this file's rows joined this book by title
        /// alone, in a pass without `isbnTitles`: up to two are kept in `consulted`; 3 means more. A
        /// row with an ISBN that teaches this node something asks them whether they would still
        /// have joined it (`noteTitleTaught`).
        var consultedCount: UInt8 = 0
        var consulted: (UInt32, UInt32) = (0, 0)

        /// Whether these titles' rows may not have joined had the node said `taught` then.
        ///
        /// Not asked: whether the node was, or would have been, the exact match that decided among
        /// several books a title could be. Asking it made the developers' 200,000-row export
        /// resolve twice for one such row (dedupe's CPU 2.0x), and no answer of bench/dedupe
        /// changed without it (0 different-book folds in one export either way).
        func consultedAnswerDiffers(from taught: TitleDescriptor) -> Bool {
            guard consultedCount <= 2 else { return true }
            return [consulted.0, consulted.1].prefix(Int(consultedCount)).contains { raw in
                !taught.isCompatible(with: TitleDescriptor(rawValue: raw))
            }
        }

        /// Keeps `row` among the titles that joined here; false when it was kept already. A title
        /// whose initial disagrees with the node's is not kept: no filling in makes them agree.
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
    /// Per book (numbered as `entities`), its first row of this file with a source id:
    /// `rowTag << 32 | subtitlePart`; 0 when none yet. 8 bytes a book.
    private var fileEntries: [UInt64] = []
    private let ids: SpooledArray<UInt64>
    private let nodes: SpooledArray<TitleNode>
    /// ISBN and `row:` key → book; main key → the newest node of its chain.
    private var index = KeyIndex()
    /// What the file's rows say of each ISBN's title together, given (`use(_:)`) for a second pass.
    private var isbnTitles = ISBNTitles()
    /// Resolving the file again with `isbnTitles` known from its first row may answer otherwise:
    /// a row with an ISBN taught a book's title something that a row of the file which had joined
    /// that book by title alone would not have joined (see `use(_:)`).
    public private(set) var needsISBNTitles = false
    /// `isbnTitles` was given (a second pass).
    private var titlesGiven = false
    /// Books of the library that a row with an ISBN taught a title which the library's own title
    /// for them does not join (`War` learning it is `War: volume 0`): rows of earlier imports that
    /// joined such a book by title alone may be another book, and the library cannot tell which
    /// (it keeps no row's title). Only rebuilding it from the stored imports, with what every
    /// import's rows say of their ISBNs known from the start, parts them (`shelfline rebuild`).
    private var libraryBooksTaught: Set<Int32> = []
    public var libraryBooksToRebuild: Int { libraryBooksTaught.count }
    public let parameters: DedupeParameters

    /// `scratchDirectory`: where the books' ids and title nodes are spooled (files unlinked once
    /// open; the stage's output or work directory).
    public init(parameters: DedupeParameters = DedupeParameters(), scratchDirectory: String) throws {
        self.parameters = parameters
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

    /// Resolves the file's rows as if what its rows sharing an ISBN say of its title together
    /// (`titles`, learnt by a first pass over the same file) were known from its first row; tells
    /// the library's books found by those ISBNs too. Call after the library is added, before the
    /// first `resolve`.
    ///
    /// Why: a row carrying one book's ISBN under a shorter title (`Cloud Atlas` with the ISBN of
    /// `Cloud Atlas: Book Three`) makes or finds a book by the shorter title, and a row of another
    /// book of that main title (`Cloud Atlas`, no ISBN) joins it by title before the row that says
    /// `Book Three` comes: two books folded into one. Dedupe and merge resolve a file in one pass
    /// without it; only when `needsISBNTitles` says a row joined a book by title that a row with an
    /// ISBN then showed to be another do they read the file for it (`ISBNTitles.learn`) and resolve
    /// it again (the stage's cost about three times; most files never need it).
    mutating func use(_ titles: ISBNTitles) throws {
        isbnTitles = titles
        titlesGiven = true
        // A library book found by one of these ISBNs learns what the rows say of its title.
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

    /// Registers a library book and the keys it owns (an ISBN key already owned stays with its
    /// owner). A book the current import itself created (`existedBeforeImport` false) resolves as
    /// `new`. Its title keys under one main key are read as one node: what they say together.
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
                // Keys under one main title that the rule calls different books: the book was
                // joined by ISBN under another title (`grantTitle`), so it is closed to title joins.
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

    /// The nodes under `mainHash`, newest first.
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

    /// The book the row's title identity finds (see the type's rules); `ambiguous` when several
    /// could be it. Books a row of this file with another ISBN went to are passed over when
    /// `skippingISBNBooks`.
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
            // The row joins this book by title alone: it is what a later row with an ISBN may show
            // was another book (`noteTitleTaught`). Rows kept apart are not noted: what the ISBN's
            // rows teach can only make them join less, or (two halves becoming whole) a sibling.
            var consulting = try nodes.value(Int(joined.number))
            if consulting.consult(row) { try nodes.set(Int(joined.number), consulting) }
        }
        if let joined { return (joined.entity, false) }
        return (nil, compatible.count > 1)
    }

    /// The row is the reader's other entry than the book's first row of this file with a source
    /// id: another id, and a title that differs in more than a series marker (see the type's rules).
    private func isAnotherEntry(_ keys: RecordKeys, than entity: Int32) -> Bool {
        let entry = fileEntries[Int(entity)]
        guard keys.rowTag != 0, entry != 0 else { return false }
        return UInt32(truncatingIfNeeded: entry >> 32) != keys.rowTag
            && UInt32(truncatingIfNeeded: entry) != keys.ownDescriptor.subtitlePart
    }

    /// Gives `entity` the row's title identity: fills in its node under the row's main key, or
    /// adds one when it has none there and no book's node says exactly the same. The row's title
    /// key when that told the book something new (the book stores it), else nil.
    private mutating func grantTitle(
        _ keys: RecordKeys, to entity: Int32,
        chain: [(number: Int32, node: TitleNode)]
    ) throws -> String? {
        guard let title = keys.title, let mainHash = keys.mainHash else { return nil }
        let row = keys.descriptor
        if let own = chain.first(where: { $0.node.entity == entity }) {
            // Read again: looking for the row's book may have noted the row in it (`consult`).
            let current = try nodes.value(Int(own.number))
            let descriptor = TitleDescriptor(rawValue: current.descriptor)
            guard !descriptor.isClosed else { return nil }
            guard descriptor.isCompatible(with: row) else {
                // Joined (by ISBN) under a title the rule calls another book: which book a row of
                // that main title means is no longer sure, so none joins this one by title. The
                // book keeps the row's key, so the library remembers (`addLibraryBook`).
                noteTitleTaught(by: keys, to: current, becoming: descriptor.closed)
                var node = current
                node.descriptor = descriptor.closed.rawValue
                try nodes.set(Int(own.number), node)
                return title.key
            }
            let filled = descriptor.filled(from: row)
            if filled == descriptor {
                // Nothing new, unless the node learnt it from the ISBN's other rows and this row's
                // own title is the one that says it: the book stores this row's key.
                guard current.learnt, keys.ownDescriptor.filled(from: descriptor) == keys.ownDescriptor else { return nil }
                var node = current
                node.learnt = false
                try nodes.set(Int(own.number), node)
                return title.key
            }
            noteTitleTaught(by: keys, to: current, becoming: filled)
            var node = current
            node.descriptor = filled.rawValue
            node.learnt = node.learnt || row != keys.ownDescriptor
            try nodes.set(Int(own.number), node)
            return title.key
        }
        if chain.contains(where: { TitleDescriptor(rawValue: $0.node.descriptor) == row }) { return nil }
        try addNode(mainHash: mainHash, entity: entity, descriptor: row, learnt: row != keys.ownDescriptor)
        return title.key
    }

    /// A row with an ISBN teaches `node` (now `taught`) something: had it been known when a row
    /// of the file joined this book by title alone, that row might not have joined it.
    private mutating func noteTitleTaught(by keys: RecordKeys, to node: TitleNode, becoming taught: TitleDescriptor) {
        guard keys.isbnHash != nil else { return }
        if !titlesGiven, node.consultedAnswerDiffers(from: taught) { needsISBNTitles = true }
        noteLibraryBookTaught(node.entity, known: TitleDescriptor(rawValue: node.descriptor), becoming: taught)
    }

    /// A library book whose title `known` becomes `taught`: when a row of its own title (`known`)
    /// would not join `taught`, rows of earlier imports that joined it by title alone may be
    /// another book (`libraryBooksToRebuild`).
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
            // A new book's id is the hash of its primary key (`BookKeys.bookId(for:)`)…
            var newId = isbnHash ?? keys.title.map { BookKeys.keyHash($0.key) } ?? fallbackHash!
            if isbnHash == nil, let title = keys.title, !chain.isEmpty {
                // …unless a book under this main key was made from the same title key and has
                // learnt more since (a subtitle): this row, not it, is then `<key>#2` (`#3`, …).
                // ISBN and `row:` keys are owned, so only title keys can meet a book's id again.
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
        if record.firstLine == 0 {
            entities[entity].firstLine = Int32(line)
            return Resolution(
                bookId: id, status: record.inLibrary ? .inLibrary : .new, key: decidedBy,
                firstLine: nil, grantedKeys: granted, created: created, ambiguous: ambiguous)
        }
        return Resolution(
            bookId: id, status: .duplicateInFile, key: decidedBy, firstLine: Int(record.firstLine),
            grantedKeys: granted, created: created, ambiguous: ambiguous)
    }
}

extension KeyResolver {
    /// The books' states, numbered from 0, in chunks of 64Ki (`MappedBuffer`s): an array of
    /// millions of them grew by copying itself into one twice its size, both held at once (merge's
    /// peak memory). 4 bytes a book: the first line and the two flags (the id, 8 more, is in a
    /// `SpooledArray`).
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
