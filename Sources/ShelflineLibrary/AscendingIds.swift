/// Book ids in ascending order, found by binary search: 8 bytes an id, where a `Set<UInt64>` takes 11–21
/// and copies itself while growing (at 2,000,000 rows, merge's peak memory).
struct AscendingIds: Sendable {
    private var ids: [UInt64] = []

    init(sorted ids: [UInt64] = []) { self.ids = ids }

    mutating func append(_ id: UInt64) {
        precondition(ids.last.map { $0 < id } ?? true, "book ids must be appended in ascending order")
        ids.append(id)
    }

    func contains(_ id: UInt64) -> Bool {
        var low = 0, high = ids.count
        while low < high {
            let mid = (low + high) / 2
            if ids[mid] < id { low = mid + 1 } else { high = mid }
        }
        return low < ids.count && ids[low] == id
    }
}
