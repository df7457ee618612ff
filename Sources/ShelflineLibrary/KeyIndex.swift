/// The key index's table: a 64-bit key hash → the number of the book owning the key.
///
/// Open addressing with linear probing on the hash's own bits (SHA-256: uniform already), not a
/// `[UInt64: Int32]`, which hashes every key again (SipHash and probing: about 2 % of merge,
/// measured). Memory is most of dedupe's and merge's at 2,000,000 rows (3.0M keys), so:
/// - One 8-byte word a slot (not 12: the whole hash and an `Int32` owner): the owner + 1 in the
///   low `ownerBits` bits (0: empty), as many as the largest owner needs, and above them the hash
///   minus its top 8 bits (which pick the shard), as many of its bits as fit: 43 at 1.83M books.
///   A lookup compares the tag of each slot it probes; an unrelated key with the same tag answers
///   with the wrong book, with probability 2^-tagBits a compared slot: at 2M rows (~7M lookups and
///   claims, 3.3 slots compared each, measured on 3M random keys) ≈ 3e-6 for the whole import,
///   where two of its 3.0M keys sharing their 64-bit hash (the book ids are these hashes) is
///   ≈ 2.4e-7 already.
/// - 256 shards by the hash's top 8 bits, each filled to 80 % and doubled on its own: a shard's
///   old and new slots coexist while it grows, never the whole table's (one 2^21-slot table holds
///   25 MB and its 50 MB successor at once at 1.68M keys).
/// With these, 12-byte books and `MappedBuffer`s, dedupe's peak RSS at 2M rows is 96 MB, not 131
/// (docs/performance.md, "Figures behind the code's choices").
struct KeyIndex {
    private static let shardBits = 8
    private var shards = (0..<1 << KeyIndex.shardBits).map { _ in Shard() }
    private(set) var count = 0
    /// Owner + 1 fits in the low `ownerBits` bits of a slot.
    private var ownerBits = 8

    init() {}

    private var ownerMask: UInt64 { (1 << UInt64(ownerBits)) - 1 }

    /// `hash` as stored above the owner bits: without the shard's bits, cut to the tag's width.
    @inline(__always)
    private func tag(_ hash: UInt64) -> UInt64 { (hash << UInt64(Self.shardBits)) & ~ownerMask }

    /// `hash` mixed (SplitMix64's finaliser, a bijection) before its bits are split into shard,
    /// place and tag: key hashes are uniform already, but hashes that differ only in the bits a
    /// tag drops (ones built by hand, `(n << 40) | 7`) would all be one key without it.
    @inline(__always)
    private static func mix(_ hash: UInt64) -> UInt64 {
        var z = (hash ^ (hash >> 30)) &* 0xBF58_476D_1CE5_E4B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    @inline(__always)
    private static func shard(of hash: UInt64) -> Int { Int(truncatingIfNeeded: hash >> UInt64(64 - shardBits)) }

    /// The owner of the key hashing to `key`, or nil.
    func owner(of key: UInt64) -> Int32? {
        let hash = Self.mix(key)
        let word = shards[Self.shard(of: hash)].find(hash: hash, tag: tag(hash), ownerMask: ownerMask)
        return word == 0 ? nil : Int32(truncatingIfNeeded: (word & ownerMask) - 1)
    }

    /// Makes `owner` the owner of `key` (a key hash) unless it has one already; true when it did.
    mutating func claim(_ key: UInt64, for owner: Int32) -> Bool {
        let hash = Self.mix(key)
        precondition(owner >= 0, "key index: a negative owner")
        let stored = UInt64(owner) + 1
        if stored > ownerMask { widenOwners(toFit: stored) }
        let claimed = shards[Self.shard(of: hash)].claim(hash: hash, word: tag(hash) | stored, ownerMask: ownerMask)
        if claimed { count += 1 }
        return claimed
    }

    /// Makes `owner` the owner of `key`, replacing any owner it had (the head of a title chain).
    mutating func assign(_ key: UInt64, to owner: Int32) {
        let hash = Self.mix(key)
        precondition(owner >= 0, "key index: a negative owner")
        let stored = UInt64(owner) + 1
        if stored > ownerMask { widenOwners(toFit: stored) }
        if shards[Self.shard(of: hash)].assign(hash: hash, word: tag(hash) | stored, ownerMask: ownerMask) { count += 1 }
    }

    /// Moves the owner/tag boundary up so `stored` fits: every slot drops its tag's lowest bits, in
    /// place (no second table). Owners grow by one at a time, so this runs once per bit, ≤ 32 times.
    private mutating func widenOwners(toFit stored: UInt64) {
        let oldMask = ownerMask
        ownerBits = 64 - stored.leadingZeroBitCount
        let newMask = ownerMask
        for index in shards.indices { shards[index].retag(oldOwnerMask: oldMask, newOwnerMask: newMask) }
    }
}

extension KeyIndex {
    /// One shard's slots: 8 bytes each, 0 when empty.
    struct Shard {
        private var slots = MappedBuffer<UInt64>(count: 16)
        private var count = 0

        private var mask: Int { slots.elements.count - 1 }

        /// A key's first slot to probe: the hash's bits 24 ..< 56, which every tag keeps (owners
        /// take at most 32 bits, and a word holds the hash shifted up by the 8 shard bits), so a
        /// growing shard places words again without their keys.
        @inline(__always)
        static func home(ofHash hash: UInt64) -> Int { Int(truncatingIfNeeded: hash >> 24) }

        @inline(__always)
        static func home(ofWord word: UInt64) -> Int { Int(truncatingIfNeeded: word >> 32) }

        /// The slot word whose tag is `tag`, or 0.
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

        /// Stores `word` at `hash`'s place unless a slot has its tag already; true when it did.
        mutating func claim(hash: UInt64, word: UInt64, ownerMask: UInt64) -> Bool {
            store(hash: hash, word: word, ownerMask: ownerMask, replacing: false)
        }

        /// Stores `word` at `hash`'s place, over the slot with its tag if there is one; true when
        /// the key is new.
        mutating func assign(hash: UInt64, word: UInt64, ownerMask: UInt64) -> Bool {
            store(hash: hash, word: word, ownerMask: ownerMask, replacing: true)
        }

        /// Finds the slot with `word`'s tag, or the empty slot where it goes: a found slot is
        /// overwritten when `replacing`, an empty one filled; true when the key is new.
        private mutating func store(hash: UInt64, word: UInt64, ownerMask: UInt64, replacing: Bool) -> Bool {
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

        /// Doubles the shard, placing each word again from the hash bits its tag kept.
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

        /// Copies the slots first when another index shares them (a copied `KeyIndex`).
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
