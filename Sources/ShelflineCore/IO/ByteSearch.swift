#if canImport(Glibc)
    import Glibc
#endif

extension UnsafeRawBufferPointer {
    /// The first index of `byte` in `range` of these bytes, by `memchr`. `firstIndex(of:)` on a
    /// slice of raw bytes goes byte by byte: finding the line ends and tabs of merge's scratch
    /// buckets that way costs 2.5 % of merge's CPU, 0.7 % by `memchr` (measured, 200,000 rows).
    public func index(ofByte byte: UInt8, in range: Range<Int>) -> Int? {
        guard let base = baseAddress, !range.isEmpty else { return nil }
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "range outside the buffer")
        guard let found = memchr(base + range.lowerBound, Int32(byte), range.count) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }
}
