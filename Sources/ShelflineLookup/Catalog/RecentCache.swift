import Foundation

/// A bounded map in two generations (a value found in the previous one moves back): emptying one
/// table when full would drop the editions a common title brings back row after row.
struct RecentCache<Key: Hashable, Value> {
    private var current: [Key: Value] = [:]
    private var previous: [Key: Value] = [:]
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

/// A `RecentCache` the connections to one index share, behind a lock.
final class SharedRecentCache<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var cache: RecentCache<Key, Value>

    init(generationLimit: Int) {
        cache = RecentCache(generationLimit: generationLimit)
    }

    func values(for keys: [Key]) -> [Value?] {
        lock.withLock { keys.map { cache[$0] } }
    }

    func insert(_ entries: [(Key, Value)]) {
        guard !entries.isEmpty else { return }
        lock.withLock {
            for (key, value) in entries { cache.insert(value, for: key) }
        }
    }

    var count: Int { lock.withLock { cache.count } }
}
