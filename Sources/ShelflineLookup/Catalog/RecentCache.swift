import Foundation

/// A bounded map keeping what was used recently, in two generations: when the current one is
/// full it becomes the previous one (the older is dropped), and a value found in the previous
/// generation moves back into the current one. Emptying one table when it fills would drop the
/// editions a common title brings back row after row.
struct RecentCache<Key: Hashable, Value> {
    private var current: [Key: Value] = [:]
    private var previous: [Key: Value] = [:]
    /// Values per generation: at most twice this many are held.
    let generationLimit: Int

    init(generationLimit: Int) {
        self.generationLimit = max(1, generationLimit)
    }

    subscript(key: Key) -> Value? {
        mutating get {
            if let value = current[key] { return value }
            guard let value = previous.removeValue(forKey: key) else { return nil }
            insert(value, for: key)
            return value
        }
    }

    mutating func insert(_ value: Value, for key: Key) {
        if current.count >= generationLimit, current[key] == nil {
            previous = current
            current = Dictionary(minimumCapacity: generationLimit)
        }
        current[key] = value
    }

    var count: Int { current.count + previous.count }
}

/// A `RecentCache` the connections to one index share (each used by its own thread), behind a lock.
final class SharedRecentCache<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var cache: RecentCache<Key, Value>

    init(generationLimit: Int) {
        cache = RecentCache(generationLimit: generationLimit)
    }

    subscript(key: Key) -> Value? {
        lock.withLock { cache[key] }
    }

    func insert(_ value: Value, for key: Key) {
        lock.withLock { cache.insert(value, for: key) }
    }

    /// Each key's value, or nil, in one locked pass.
    func values(for keys: [Key]) -> [Value?] {
        lock.withLock { keys.map { cache[$0] } }
    }

    /// Inserts them all in one locked pass.
    func insert(_ entries: [(Key, Value)]) {
        guard !entries.isEmpty else { return }
        lock.withLock {
            for (key, value) in entries { cache.insert(value, for: key) }
        }
    }

    var count: Int { lock.withLock { cache.count } }
}
