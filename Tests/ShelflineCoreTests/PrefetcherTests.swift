import Foundation
import ShelflineCore
import Testing

/// A `Prefetcher` makes values on a second thread (issue 12): they arrive in order, an error after
/// everything made before it, and stopping early ends the thread.
@Suite struct PrefetcherTests {
    struct Failure: Error, Equatable { var at: Int }

    @Test(.bug(id: 12)) func prefetcherHandsOutValuesInOrderThenTheError() throws {
        let prefetcher = Prefetcher<Int>(depth: 2) { emit in
            for value in 0..<100 { try emit(value) }
            throw Failure(at: 100)
        }
        defer { prefetcher.stop() }
        var seen: [Int] = []
        #expect(throws: Failure(at: 100)) {
            while let value = try prefetcher.next() { seen.append(value) }
        }
        #expect(seen == Array(0..<100))
    }

    @Test(.bug(id: 12)) func stoppingEarlyEndsTheProducer() throws {
        let prefetcher = Prefetcher<Int>(depth: 1) { emit in
            var value = 0
            while true {
                try emit(value)
                value += 1
            }
        }
        #expect(try prefetcher.next() == 0)
        prefetcher.stop()
        prefetcher.stop()
    }
}
