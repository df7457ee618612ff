import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLibrary

/// The key index's own table (issue 12: no second hashing; the 8-byte slots are tested in KeyIndexMemoryTests).
@Suite struct KeyIndexTests {
    @Test(.bug(id: 12)) func theFirstClaimOwnsAKeyAcrossGrowth() {
        var index = KeyIndex()
        // Hashes sharing their low bits probe the same run of slots; the second half repeats some.
        let clustered: [UInt64] = (0..<20_000).map { (UInt64($0) << 40) | 7 }
        let repeated: [UInt64] = (0..<20_000).map { (UInt64($0 % 5_000) << 40) | 7 }
        let spread: [UInt64] = (0..<20_000).map { UInt64($0) &* 0x9E37_79B9_7F4A_7C15 }
        let hashes = clustered + repeated + spread
        var first: [UInt64: Int32] = [:]
        for (number, hash) in hashes.enumerated() {
            let isFirst = first[hash] == nil
            if isFirst { first[hash] = Int32(number) }
            #expect(index.claim(hash, for: Int32(number)) == isFirst)
        }
        #expect(index.count == first.count)
        for (hash, owner) in first { #expect(index.owner(of: hash) == owner) }
        #expect(index.owner(of: (12_345 << 40) | 8) == nil)
    }
}
