/// Edit distance (insertions, deletions, substitutions of one scalar each), shared by the title
/// rule and the matcher's name comparison.
package enum EditDistance {
    package static func levenshtein(_ lhs: [Unicode.Scalar], _ rhs: [Unicode.Scalar]) -> Int {
        if lhs.isEmpty { return rhs.count }
        if rhs.isEmpty { return lhs.count }
        // The shorter side as the bit-vector pattern: nearly every title and name fits one word.
        if lhs.count <= 64 && lhs.count <= rhs.count { return bitParallelDistance(pattern: lhs, text: rhs) }
        if rhs.count <= 64 { return bitParallelDistance(pattern: rhs, text: lhs) }
        return tableDistance(lhs, rhs)
    }

    /// Myers' bit-parallel edit distance (Hyyrö's formulation): `tableDistance`'s result (tested)
    /// without its O(m·n) cells.
    package static func bitParallelDistance(pattern: [Unicode.Scalar], text: [Unicode.Scalar]) -> Int {
        let m = pattern.count
        let high: UInt64 = 1 << UInt64(m - 1)
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 128) { ascii in
            ascii.initialize(repeating: 0)
            var other: [(Unicode.Scalar, UInt64)] = []
            for (position, scalar) in pattern.enumerated() {
                let bit: UInt64 = 1 << UInt64(position)
                if scalar.value < 128 {
                    ascii[Int(scalar.value)] |= bit
                } else if let index = other.firstIndex(where: { $0.0 == scalar }) {
                    other[index].1 |= bit
                } else {
                    other.append((scalar, bit))
                }
            }
            var positive: UInt64 = ~0, negative: UInt64 = 0
            var score = m
            for scalar in text {
                let equal = scalar.value < 128 ? ascii[Int(scalar.value)] : (other.first { $0.0 == scalar }?.1 ?? 0)
                let xv = equal | negative
                let xh = (((equal & positive) &+ positive) ^ positive) | equal
                var hp = negative | ~(xh | positive)
                var hn = positive & xh
                if hp & high != 0 { score += 1 } else if hn & high != 0 { score -= 1 }
                hp = (hp << 1) | 1
                hn <<= 1
                positive = hn | ~(xv | hp)
                negative = hp & xv
            }
            return score
        }
    }

    /// For strings longer than 64 scalars.
    package static func tableDistance(_ lhs: [Unicode.Scalar], _ rhs: [Unicode.Scalar]) -> Int {
        var previous = Array(0...rhs.count)
        var current = [Int](repeating: 0, count: rhs.count + 1)
        for i in 1...lhs.count {
            current[0] = i
            for j in 1...rhs.count {
                let cost = lhs[i - 1] == rhs[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[rhs.count]
    }
}
