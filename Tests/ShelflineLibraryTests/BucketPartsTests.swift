import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLibrary

/// Issue 12, merge's second pass: a bucket over the part size is folded in parts, whatever the import's size.
@Suite struct BucketPartsTests {
    /// Every book of `paths`, in the order pass 2 takes them: (id, its entries' lines and titles).
    func books(_ paths: [String]) throws -> [(UInt64, [Int], [String])] {
        var books: [(UInt64, [Int], [String])] = []
        for path in paths {
            try BucketFile.forEachBook(path: path, recordsPath: "records.ndjson.gz") { id, entries in
                books.append((id, entries.map(\.record.line), entries.map(\.record.title)))
            }
        }
        return books
    }

    @Test(.bug(id: 12), arguments: [0, 2])
    func partsGiveTheSameBooksInTheSameOrder(bucketBits: Int) throws {
        let directory = TemporaryDirectory("bucket-parts-\(bucketBits)")
        var generator = SeededGenerator(seed: UInt64(40 + bucketBits))
        let files = try (0..<(1 << bucketBits)).map { try BucketFile(path: directory.file("bucket-\($0)")) }
        // Books with several lines each, in an order that is not the books' (the import's order).
        var line = 0
        let ids = (0..<600).map { _ in generator.next() }
        for round in 0..<3 {
            for id in ids where (id ^ UInt64(round)) % 3 != 0 {
                line += 1
                let record = try JSONEncoder.shelfline.encode(
                    BookRecord(format: .goodreads, line: line, title: "Title \(id % 97) \(round)"))
                let bucket = bucketBits == 0 ? 0 : Int(id >> UInt64(64 - bucketBits))
                try record.withUnsafeBytes { try files[bucket].append(id: id, fileLine: line, keys: ["isbn:\(id)"], record: $0) }
            }
        }
        for file in files { try file.close() }
        let whole = try books(files.map(\.path))
        let sizes = try files.map { try FileManager.default.attributesOfItem(atPath: $0.path)[.size] as! Int }

        let plan = try BucketFile.plan(files, bucketBits: bucketBits, limit: 4_096, recordsPath: "records.ndjson.gz")
        #expect(plan.paths.count > files.count)  // every bucket was split
        #expect(plan.starts.first == 0)
        #expect(zip(plan.starts, plan.starts.dropFirst()).allSatisfy { $0 < $1 })
        for path in plan.paths {
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
            #expect(size <= 2 * 4_096, "\(path): \(size) bytes from buckets of \(sizes)")
        }
        // The split buckets are gone; the parts give the same books, entries and order.
        #expect(files.allSatisfy { !FileManager.default.fileExists(atPath: $0.path) })
        let parts = try books(plan.paths)
        #expect(parts.map(\.0) == whole.map(\.0))
        #expect(parts.map(\.1) == whole.map(\.1))
        #expect(parts.map(\.2) == whole.map(\.2))
        #expect(whole.map(\.0) == whole.map(\.0).sorted())
        // Each book's id maps to the part that holds it.
        for (index, path) in plan.paths.enumerated() {
            try BucketFile.forEachBook(path: path, recordsPath: "records.ndjson.gz") { id, _ in
                #expect(plan.bucket(of: id) == index)
            }
        }
    }

    @Test(.bug(id: 12)) func smallBucketsAreFoldedAsTheyAre() throws {
        let directory = TemporaryDirectory("bucket-parts-small")
        let files = try (0..<4).map { try BucketFile(path: directory.file("bucket-\($0)")) }
        for file in files { try file.close() }
        let plan = try BucketFile.plan(files, bucketBits: 2, recordsPath: "records.ndjson.gz")
        #expect(plan.paths == files.map(\.path))
        #expect(plan.starts == [0, 1 << 62, 2 << 62, 3 << 62])
        #expect(plan.bucket(of: (1 << 62) - 1) == 0)
        #expect(plan.bucket(of: 1 << 62) == 1)
        #expect(plan.bucket(of: .max) == 3)
    }

    @Test(.bug(id: 12)) func aDamagedBucketLineIsAClearError() throws {
        let directory = TemporaryDirectory("bucket-parts-damaged")
        let file = try BucketFile(path: directory.file("bucket-0"))
        try file.close()
        try Data((String(repeating: "not-an-id-at-all-", count: 400) + "\n").utf8).write(to: URL(fileURLWithPath: file.path))
        #expect(throws: FileError.io(path: file.path, reason: "scratch bucket line for records.ndjson.gz is damaged")) {
            _ = try BucketFile.plan([file], bucketBits: 0, limit: 1_024, recordsPath: "records.ndjson.gz")
        }
    }

    /// Pass 2 maps each bucket rather than copying it; a bucket the import left empty maps nothing
    /// and still goes, and one that is gone is an error naming it.
    @Test(.bug(id: 41)) func bucketsAreReadByMappingThemEmptyOnesIncluded() throws {
        let directory = TemporaryDirectory("bucket-mapped")
        let empty = try BucketFile(path: directory.file("bucket-0"))
        try empty.close()
        var books = 0
        try BucketFile.forEachBook(path: empty.path, recordsPath: "records.ndjson.gz", removing: true) { _, _ in books += 1 }
        #expect(books == 0)
        #expect(!FileManager.default.fileExists(atPath: empty.path))

        let full = try BucketFile(path: directory.file("bucket-1"))
        let record = try JSONEncoder.shelfline.encode(BookRecord(format: .goodreads, line: 7, title: "Mapped"))
        try record.withUnsafeBytes { try full.append(id: 42, fileLine: 7, keys: ["isbn:42"], record: $0) }
        try full.close()
        var seen: [(UInt64, [String])] = []
        try BucketFile.forEachBook(path: full.path, recordsPath: "records.ndjson.gz", removing: true) { id, entries in
            seen.append((id, entries.map(\.record.title)))
        }
        #expect(seen.map(\.0) == [42] && seen.map(\.1) == [["Mapped"]])
        #expect(!FileManager.default.fileExists(atPath: full.path))
        #expect(throws: FileError.self) {
            try BucketFile.forEachBook(path: full.path, recordsPath: "records.ndjson.gz") { _, _ in }
        }
    }
}
