import ShelflineCore

/// What the rows of one records file carrying the same ISBN say of its title together: the ISBN's
/// main key and the descriptor all its rows fill in (`TitleDescriptor.filled(from:)`), closed when
/// two of them name different books by the title rule (`Book One` and `Book Three` under one ISBN).
///
/// Read from a records file (`learn`) when `KeyResolver.needsISBNTitles` says its answers may
/// change; dedupe and merge then resolve the file again with it (`KeyResolver.use`), so a row's
/// ISBN brings what its other rows say of the title (`Cloud Atlas` with the ISBN of `Cloud Atlas:
/// Book Three` is `Book Three`, whichever row comes first). Not kept while resolving: at 2,000,000
/// rows the table was 17 MB of dedupe's peak, for files that mostly never need it.
///
/// `shelfline rebuild` learns it from every stored import's records at once
/// (`learn(from:parameters:)` with their paths in import order) and replays each import with it, so
/// what a later export says of an ISBN is known when an earlier one is replayed (docs/library.md).
///
/// Memory: only ISBNs that some row names with a subtitle or a series number are kept (a row
/// without either says nothing another row lacks), 12 bytes each plus their index slot.
public struct ISBNTitles {
    private var index = KeyIndex()
    private var isbns: [UInt64] = []
    private var mains: [UInt64] = []
    private var descriptors: [UInt32] = []

    public init() {}

    /// What the rows of all the records files at `paths` say together of their ISBNs' titles (an
    /// ISBN's first main title, in the order given, is the one kept).
    public static func learn(from paths: [String], parameters: DedupeParameters) throws -> ISBNTitles {
        var titles = ISBNTitles()
        for path in paths {
            try KeyedRecords.forEach(path: path, parameters: parameters) { keyed, _ in titles.note(keyed.keys) }
        }
        return titles
    }

    /// Adds what `keys`' title says of its ISBN.
    mutating func note(_ keys: RecordKeys) {
        guard let isbnHash = keys.isbnHash, let mainHash = keys.mainHash else { return }
        let descriptor = keys.ownDescriptor
        guard descriptor.namesPart else { return }
        guard let slot = index.owner(of: isbnHash) else {
            index.assign(isbnHash, to: Int32(isbns.count))
            isbns.append(isbnHash)
            mains.append(mainHash)
            descriptors.append(descriptor.rawValue)
            return
        }
        let number = Int(slot)
        // Under another main title, the ISBN's rows are not one title's variants: the first stays.
        guard mains[number] == mainHash else { return }
        let known = TitleDescriptor(rawValue: descriptors[number])
        guard !known.isClosed else { return }
        descriptors[number] = known.together(with: descriptor).rawValue
    }

    /// `keys` with the descriptor its ISBN's rows say together, when they say more (or conflict).
    func hinted(_ keys: RecordKeys) -> RecordKeys {
        guard !isbns.isEmpty, let isbnHash = keys.isbnHash, let mainHash = keys.mainHash,
            let slot = index.owner(of: isbnHash), mains[Int(slot)] == mainHash
        else { return keys }
        let known = TitleDescriptor(rawValue: descriptors[Int(slot)]), own = keys.ownDescriptor
        let said = own.together(with: known)
        return said == own ? keys : keys.with(descriptor: said)
    }

    /// Each ISBN kept: its hash, its main key's hash and what its rows say together.
    func forEach(_ body: (_ isbnHash: UInt64, _ mainHash: UInt64, _ descriptor: TitleDescriptor) throws -> Void) rethrows {
        for number in isbns.indices {
            try body(isbns[number], mains[number], TitleDescriptor(rawValue: descriptors[number]))
        }
    }
}
