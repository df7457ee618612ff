/// Shrinks free text until a push body fits APNs' 4096 bytes; never fails.
package enum PushBodyFitting {
    /// Character limits tried for free-text fields, longest first; the last always fits.
    package static let textLimits = [Int.max, 160, 80, 40, 16, 4, 1]

    package static func fit<A, S>(_ build: (Int) -> ActivitySnapshot<A, S>) -> ActivitySnapshot<A, S> {
        var snapshot = build(textLimits[0])
        for limit in textLimits.dropFirst() {
            guard let size = try? snapshot.pushBodySize(), size > ShelflineActivity.maximumPushBodyBytes else { break }
            snapshot = build(limit)
        }
        return snapshot
    }
}
