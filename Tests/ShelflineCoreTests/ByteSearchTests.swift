import ShelflineCore
import Testing

/// `index(ofByte:in:)`: the first match inside the range only, as offsets of the whole buffer.
@Suite struct ByteSearchTests {
    @Test(.bug(id: 25)) func findsTheFirstByteInsideTheRangeOnly() {
        let bytes: [UInt8] = Array("a\tb\tc\n\td".utf8)
        bytes.withUnsafeBytes { all in
            #expect(all.index(ofByte: 0x09, in: 0..<all.count) == 1)
            #expect(all.index(ofByte: 0x09, in: 2..<all.count) == 3)
            #expect(all.index(ofByte: 0x09, in: 4..<6) == nil)
            #expect(all.index(ofByte: 0x0A, in: 0..<all.count) == 5)
            #expect(all.index(ofByte: 0x09, in: 7..<7) == nil)
            #expect(all.index(ofByte: UInt8(ascii: "d"), in: 0..<all.count) == all.count - 1)
        }
        [UInt8]().withUnsafeBytes { empty in #expect(empty.index(ofByte: 0, in: 0..<0) == nil) }
    }
}
