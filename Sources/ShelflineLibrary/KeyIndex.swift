/// The key index's table: a 64-bit key hash → the number of the book owning the key.
///
/// Linear probing on the hash's own bits, not a `[UInt64: Int32]`, which hashes every key again (about
/// 2 % of merge, measured). Its memory is most of dedupe's and merge's, so (docs/performance.md):
/// - One 8-byte word a slot: owner + 1 in the low `ownerBits` bits (0: empty), above them as many bits
///   of the hash (without its top 8, the shard's) as fit. A lookup compares these tags: a wrong book
///   for an unrelated key with the same tag is ≈ 3e-6 for a 2M-row import, against ≈ 2.4e-7 for two of
///   its keys sharing a 64-bit hash.
/// - 256 shards by the hash's top 8 bits, each doubled on its own at 80 %: only a shard's old and new
///   slots coexist while it grows, never the whole table's.
struct KeyIndex {
    private static let shardBits = 8
    private var shards = (0..<1 << KeyIndex.shardBits).map { _ in Shard() }
    private(set) var count = 0
    private var ownerBits = 8

    init() {}

    private var ownerMask: UInt64 { (1 << UInt64(ownerBits)) - 1 }

    @inline(__always)
    private func tag(_ hash: UInt64) -> UInt64 { (hash << UInt64(Self.shardBits)) & ~ownerMask }

    /// SplitMix64's finaliser (a bijection): hashes differing only in bits a tag drops (`(n << 40) | 7`,
    /// built by hand) would otherwise be one key.
    @inline(__always)
    private static func mix(_ hash: UInt64) -> UInt64 {
        var z = (hash ^ (hash >> 30)) &* 0xBF58_476D_1CE5_E4B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    @inline(__always)
    private static func shard(of hash: UInt64) -> Int { Int(truncatingIfNeeded: hash >> UInt64(64 - shardBits)) }

    func owner(of key: UInt64) -> Int32? {
        let hash = Self.mix(key)
        let word = shards[Self.shard(of: hash)].find(hash: hash, tag: tag(hash), ownerMask: ownerMask)
        return word == 0 ? nil : Int32(truncatingIfNeeded: (word & ownerMask) - 1)
    }

    /// Makes `owner` the owner of `key` unless it has one already; true when it did.
    mutating func claim(_ key: UInt64, for owner: Int32) -> Bool { store(key, owner, replacing: false) }

    /// Makes `owner` the owner of `key`, replacing any owner it had (the head of a title chain).
    mutating func assign(_ key: UInt64, to owner: Int32) { store(key, owner, replacing: true) }

    /// True when the key is new.
    @discardableResult
    private mutating func store(_ key: UInt64, _ owner: Int32, replacing: Bool) -> Bool {
        let hash = Self.mix(key)
        precondition(owner >= 0, "key index: a negative owner")
        let stored = UInt64(owner) + 1
        if stored > ownerMask { widenOwners(toFit: stored) }
        let new = shards[Self.shard(of: hash)].store(
            hash: hash, word: tag(hash) | stored, ownerMask: ownerMask, replacing: replacing)
        if new { count += 1 }
        return new
    }

    /// Moves the owner/tag boundary up so `stored` fits, in place: at most once per bit, ≤ 32 times.
    private mutating func widenOwners(toFit stored: UInt64) {
        let oldMask = ownerMask
        ownerBits = 64 - stored.leadingZeroBitCount
        let newMask = ownerMask
        for index in shards.indices { shards[index].retag(oldOwnerMask: oldMask, newOwnerMask: newMask) }
    }
}

extension KeyIndex {
    struct Shard {
        private var slots = MappedBuffer<UInt64>(count: 16)
        private var count = 0

        private var mask: Int { slots.elements.count - 1 }

        /// A key's first slot: hash bits 24 ..< 56, which every tag keeps, so a growing shard places words again.
        @inline(__always)
        static func home(ofHash hash: UInt64) -> Int { Int(truncatingIfNeeded: hash >> 24) }

        @inline(__always)
        static func home(ofWord word: UInt64) -> Int { Int(truncatingIfNeeded: word >> 32) }

        /// The slot word tagged `tag`, or 0.
        @inline(__always)
        func find(hash: UInt64, tag: UInt64, ownerMask: UInt64) -> UInt64 {
            let slots = self.slots.elements, mask = self.mask
            var slot = Self.home(ofHash: hash) & mask
            while true {
                let word = slots[slot]
                if word == 0 || word & ~ownerMask == tag { return word }
                slot = (slot + 1) & mask
            }
        }

        /// Fills the empty slot for `word`, or overwrites its tag's slot when `replacing`; true when the key is new.
        mutating func store(hash: UInt64, word: UInt64, ownerMask: UInt64, replacing: Bool) -> Bool {
            let tag = word & ~ownerMask
            let mask = self.mask
            var slot = Self.home(ofHash: hash) & mask
            while true {
                let found = slots.elements[slot]
                if found == 0 { break }
                if found & ~ownerMask == tag {
                    if replacing {
                        makeUnique()
                        slots.elements[slot] = word
                    }
                    return false
                }
                slot = (slot + 1) & mask
            }
            makeUnique()
            slots.elements[slot] = word
            count += 1
            if count * 5 > slots.elements.count * 4 { grow() }
            return true
        }

        private mutating func grow() {
            let old = slots
            slots = MappedBuffer(count: old.elements.count * 2)
            let new = slots.elements, mask = self.mask
            for word in old.elements where word != 0 {
                var slot = Self.home(ofWord: word) & mask
                while new[slot] != 0 { slot = (slot + 1) & mask }
                new[slot] = word
            }
        }

        /// A copied `KeyIndex` shares its slots until one writes.
        private mutating func makeUnique() {
            if !isKnownUniquelyReferenced(&slots) { slots = slots.copy() }
        }

        mutating func retag(oldOwnerMask: UInt64, newOwnerMask: UInt64) {
            makeUnique()
            let slots = self.slots.elements
            for index in slots.indices where slots[index] != 0 {
                slots[index] = (slots[index] & ~newOwnerMask) | (slots[index] & oldOwnerMask)
            }
        }
    }
}
