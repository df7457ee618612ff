import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLibrary

/// Dedupe and merge decode on a second thread (issue 12): values arrive in order, errors after
/// everything made before them, and stopping early ends the threads.
@Suite struct OrderedPrefetcherTests {
    struct Failure: Error, Equatable { var at: Int }

    @Test(.bug(id: 12), arguments: [1, 2, 3])
    func orderedPrefetcherKeepsIndexOrderOnSeveralThreads(threads: Int) throws {
        let prefetcher = OrderedPrefetcher<[Int]>(count: 50, threads: threads) { index in
            Array(repeating: index, count: (index * 7919) % 1000)
        }
        defer { prefetcher.stop() }
        var seen: [Int] = []
        while let value = try prefetcher.next() {
            seen.append(seen.count)
            #expect(value.allSatisfy { $0 == seen.count - 1 })
        }
        #expect(seen.count == 50)
    }

    @Test(.bug(id: 12)) func orderedPrefetcherThrowsAtTheFailingIndex() throws {
        let prefetcher = OrderedPrefetcher<Int>(count: 20, threads: 2) { index in
            if index == 7 { throw Failure(at: index) }
            return index
        }
        defer { prefetcher.stop() }
        var seen: [Int] = []
        #expect(throws: Failure(at: 7)) {
            while let value = try prefetcher.next() { seen.append(value) }
        }
        #expect(seen == Array(0..<7))
    }

    @Test(.bug(id: 12)) func keyedRecordsReportABadLineAfterTheLinesBeforeIt() throws {
        let directory = TemporaryDirectory("keyed-records")
        var lines: [String] = []
        for line in 2..<2_002 {
            lines.append(
                #"{"byteLength":10,"byteOffset":0,"format":"goodreads","line":\#(line),"title":"Book \#(line)","isbn13":"9780441172719"}"#
            )
        }
        lines.append(#"{"byteLength":10,"byteOffset":0,"format":"goodreads","line":"#)
        let path = try GzipFixture.write(text: lines.joined(separator: "\n") + "\n", to: directory.file("records.ndjson.gz"))
        var seen: [Int] = []
        #expect {
            try KeyedRecords.forEach(path: path, parameters: DedupeParameters()) { record, bytes in
                #expect(record.keys.isbn == "isbn:9780441172719")
                #expect(bytes.count == lines[record.fileLine - 1].utf8.count)
                seen.append(record.identity.line)
            }
        } throws: { error in
            guard case FileError.corrupt(_, let line, _) = error else { return false }
            return line == 2_001
        }
        #expect(seen == Array(2..<2_002))
    }

    /// Issue 25: batches decode while the next ones are read. A bad line in the middle of a file of
    /// many batches still ends the records at the line before it, and none after it gets through.
    @Test(.bug(id: 25), arguments: [1_500, 4_321, 7_999])
    func keyedRecordsStopAtABadLineAmongManyBatches(badLine: Int) throws {
        let directory = TemporaryDirectory("keyed-records-batches")
        var lines: [String] = []
        for line in 1...8_000 {
            lines.append(
                line == badLine
                    ? #"{"format":"goodreads","line":\#(line),"title":"#
                    : #"{"byteLength":10,"byteOffset":0,"format":"goodreads","line":\#(line),"title":"Book \#(line) \#(String(repeating: "x", count: line % 200))"}"#
            )
        }
        let path = try GzipFixture.write(text: lines.joined(separator: "\n") + "\n", to: directory.file("records.ndjson.gz"))
        #expect(lines.joined().utf8.count > 4 * KeyedRecords.batchBytes)
        var seen: [Int] = []
        #expect {
            try KeyedRecords.forEach(path: path, parameters: DedupeParameters()) { record, _ in seen.append(record.fileLine) }
        } throws: { error in
            guard case FileError.corrupt(_, let line, _) = error else { return false }
            return line == badLine
        }
        #expect(seen == Array(1..<badLine))
    }

    @Test(.bug(id: 12)) func changedFieldsAreDeclaredInSortedOrder() {
        let names = ChangedFields.fieldNames
        #expect(names == names.sorted())
        var changed: ChangedFields = [.title]
        changed.insert(.additionalAuthors)
        changed.insert(.readCount)
        changed.insert(.reads)
        #expect(changed.names == ["additionalAuthors", "readCount", "reads", "title"])
    }
}
