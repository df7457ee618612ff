import ShelflineCore

/// What the rows carrying one ISBN say of its title together (closed when two name different books), for
/// ISBNs some row names with a subtitle or series number. Learnt only when `KeyResolver.needsISBNTitles`
/// says so: kept while resolving, it was 17 MB of dedupe's peak at 2,000,000 rows. `shelfline rebuild`
/// learns it from every stored import, so earlier imports replay knowing what later ones say.
public struct ISBNTitles {
    private var index = KeyIndex()
    private var isbns: [UInt64] = []
    private var mains: [UInt64] = []
    private var descriptors: [UInt32] = []

    public init() {}

    /// An ISBN's first main title, in the order of `paths`, is the one kept.
    public static func learn(from paths: [String], parameters: DedupeParameters) throws -> ISBNTitles {
        var titles = ISBNTitles()
        for path in paths {
            try KeyedRecords.forEach(path: path, parameters: parameters) { keyed, _ in titles.note(keyed.keys) }
        }
        return titles
    }

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

    /// `keys` with what its ISBN's rows say together, when they say more (or conflict).
    func hinted(_ keys: RecordKeys) -> RecordKeys {
        guard !isbns.isEmpty, let isbnHash = keys.isbnHash, let mainHash = keys.mainHash,
            let slot = index.owner(of: isbnHash), mains[Int(slot)] == mainHash
        else { return keys }
        let known = TitleDescriptor(rawValue: descriptors[Int(slot)]), own = keys.ownDescriptor
        let said = own.together(with: known)
        return said == own ? keys : keys.with(descriptor: said)
    }

    func forEach(_ body: (_ isbnHash: UInt64, _ mainHash: UInt64, _ descriptor: TitleDescriptor) throws -> Void) rethrows {
        for number in isbns.indices {
            try body(isbns[number], mains[number], TitleDescriptor(rawValue: descriptors[number]))
        }
    }
}
