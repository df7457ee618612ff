/// The key index's table: a 64-bit key hash → the number of the book owning the key.
///
/// Open addressing with linear probing on the hash's own low bits (SHA-256: uniform already), in
/// two flat arrays (12 bytes a slot), filled to 80 %. It replaces a `[UInt64: Int32]`, which
/// hashed every key again (SipHash and probing: about 2 % of merge, perf, issue 12) and doubles at
/// 75 %: 12 bytes a slot either way, but at 80 % up to 3.36M keys fit 2^22 slots (50 MB), where
/// the dictionary moves to 2^23 (100 MB, copied from the 50 MB) above 3.15M.
struct KeyIndex {
    private var hashes: [UInt64]
    /// The owner of each slot; -1: the slot is empty.
    private var owners: [Int32]
    private(set) var count = 0
    private var mask: Int

    init() {
        mask = (1 << 12) - 1
        hashes = Array(repeating: 0, count: mask + 1)
        owners = Array(repeating: -1, count: mask + 1)
    }

    /// The owner of `hash`, or nil.
    func owner(of hash: UInt64) -> Int32? {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let owner = owners[slot]
            if owner < 0 { return nil }
            if hashes[slot] == hash { return owner }
            slot = (slot + 1) & mask
        }
    }

    /// Makes `owner` the owner of `hash` unless the hash has one already; true when it did.
    mutating func claim(_ hash: UInt64, for owner: Int32) -> Bool {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while owners[slot] >= 0 {
            if hashes[slot] == hash { return false }
            slot = (slot + 1) & mask
        }
        hashes[slot] = hash
        owners[slot] = owner
        count += 1
        if count * 5 > (mask + 1) * 4 { grow() }
        return true
    }

    private mutating func grow() {
        let oldHashes = hashes, oldOwners = owners
        mask = (mask + 1) * 2 - 1
        hashes = Array(repeating: 0, count: mask + 1)
        owners = Array(repeating: -1, count: mask + 1)
        for index in oldOwners.indices where oldOwners[index] >= 0 {
            var slot = Int(truncatingIfNeeded: oldHashes[index]) & mask
            while owners[slot] >= 0 { slot = (slot + 1) & mask }
            hashes[slot] = oldHashes[index]
            owners[slot] = oldOwners[index]
        }
    }
}
