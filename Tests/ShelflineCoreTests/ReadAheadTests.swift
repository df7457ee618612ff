import Foundation
import ShelflineCore
import TestSupport
import Testing

/// Every stage's reader inflates through `ReadAhead`, a `Prefetcher` of recycled byte buffers
/// (issue 12): many chunks arrive whole and in order, and a consumer's error ends the reader.
@Suite struct ReadAheadTests {
    struct Stop: Error {}

    static func text() -> String {
        (1...20_000).map { "line \($0) " + String(repeating: "x", count: $0 % 97) }.joined(separator: "\n") + "\n"
    }

    @Test(.bug(id: 12)) func readAheadDeliversEveryLineOfManyChunksInOrder() throws {
        let directory = TemporaryDirectory("read-ahead")
        // 4 KiB members: hundreds of chunks through the few recycled buffers.
        let path = try GzipFixture.write(text: Self.text(), to: directory.file("lines.gz"), chunkSize: 4096)
        var ahead: [String] = []
        try GzipReader(path: path).forEachLine { bytes, number in
            #expect(number == ahead.count + 1)
            ahead.append(String(decoding: bytes, as: UTF8.self))
        }
        var inline: [String] = []
        try GzipReader(path: path).forEachLine(readAhead: false) { bytes, _ in
            inline.append(String(decoding: bytes, as: UTF8.self))
        }
        #expect(ahead.count == 20_000)
        #expect(ahead == inline)
    }

    @Test(.bug(id: 12)) func aConsumerErrorStopsTheReader() throws {
        let directory = TemporaryDirectory("read-ahead-stop")
        let path = try GzipFixture.write(text: Self.text(), to: directory.file("lines.gz"), chunkSize: 4096)
        var seen = 0
        #expect(throws: Stop.self) {
            try GzipReader(path: path).forEachLine { _, number in
                seen = number
                if number == 1_000 { throw Stop() }
            }
        }
        #expect(seen == 1_000)
    }
}
