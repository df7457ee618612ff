#if canImport(Glibc)
    import Glibc
#endif

extension UnsafeRawBufferPointer {
    /// By `memchr`: `firstIndex(of:)` on raw bytes goes byte by byte, measured over 3 times slower
    /// on merge's scratch buckets.
    public func index(ofByte byte: UInt8, in range: Range<Int>) -> Int? {
        guard let base = baseAddress, !range.isEmpty else { return nil }
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "range outside the buffer")
        guard let found = memchr(base + range.lowerBound, Int32(byte), range.count) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }
}
