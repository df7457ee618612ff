import Foundation
import ShelflineCore
import ShelflineReports

#if canImport(Glibc)
    import Glibc
#endif

/// review.json's items, encoded and spooled in pass 1, streamed out once the fold says which books are still
/// flagged: a whole `ReviewList` encoded at the end was merge's peak. Same bytes: each item encoded alone.
final class ReviewSpool {
    private let items: ScratchWriter
    private let ruledOut: ScratchWriter
    private var itemCount = 0
    private var ruledOutCount = 0
    private let encoder = JSONEncoder.shelflinePretty
    /// The item's lines indented by 4: they sit in a list in an object.
    private var entry: [UInt8] = []

    init(directory: String) throws {
        items = try ScratchWriter(path: directory + "/review-items", flushSize: 1 << 16)
        ruledOut = try ScratchWriter(path: directory + "/review-ruled-out", flushSize: 1 << 16)
    }

    /// Listed if book `id` is still flagged after the fold; nil: ruled out, always listed.
    /// Entry format: 8-byte book id, 8-byte length, the indented item.
    func append(_ item: ReviewItem, book id: UInt64?) throws {
        if id == nil { ruledOutCount += 1 } else { itemCount += 1 }
        let file = id == nil ? ruledOut : items
        let data = try encoder.encode(item)
        entry.removeAll(keepingCapacity: true)
        // Raw newlines are the encoder's layout (a string's are escaped); an empty list's blank line stays blank.
        var lineStart = true
        for byte in data {
            if lineStart && byte != UInt8(ascii: "\n") { entry.append(contentsOf: "    ".utf8) }
            entry.append(byte)
            lineStart = byte == UInt8(ascii: "\n")
        }
        try file.append { buffer in
            withUnsafeBytes(of: (id ?? 0).littleEndian) { buffer.append(contentsOf: $0) }
            withUnsafeBytes(of: UInt64(entry.count).littleEndian) { buffer.append(contentsOf: $0) }
            buffer.append(contentsOf: entry)
        }
    }

    /// What `writeJSONFile(ReviewList(…))` writes, `settled` holding the decided of the others; returns the items listed.
    func write(importId: String, to path: String, keep: (UInt64) -> Bool, settled: (UInt64) -> Bool = { _ in false }) throws
        -> Int
    {
        try items.close()
        try ruledOut.close()
        // `{\n  "importId" : …,\n  "items" : ` and an empty list, from the encoder.
        let skeleton = Array(try encoder.encode(ReviewList(importId: importId, items: [])))
        let itemsKey = Array("\"items\" : ".utf8)
        guard
            let keyStart = (0...(skeleton.count - itemsKey.count)).last(where: {
                skeleton[$0..<($0 + itemsKey.count)].elementsEqual(itemsKey)
            }),
            skeleton.suffix(2).elementsEqual("\n}".utf8)
        else { preconditionFailure("review spool: unexpected ReviewList layout") }
        let header = skeleton[..<(keyStart + itemsKey.count)]
        let emptyList = skeleton[(keyStart + itemsKey.count)..<(skeleton.count - 2)]

        // Uncommitted, it is removed when dropped.
        let file = try AtomicFile(path: path)
        try file.write(Array(header))
        let listed = try copy(items.path, to: file, emptyList: emptyList, keep: keep)
        if ruledOutCount > 0 {
            try file.write(",\n  \"ruledOut\" : ")
            try copy(ruledOut.path, to: file, emptyList: emptyList, keep: { _ in true })
        }
        var anySettled = false
        if listed < itemCount {
            try forEachEntry(items.path) { id, _ in anySettled = anySettled || (!keep(id) && settled(id)) }
        }
        if anySettled {
            try file.write(",\n  \"settled\" : ")
            try copy(items.path, to: file, emptyList: emptyList, keep: { !keep($0) && settled($0) })
        }
        try file.write("\n}\n")
        try file.commit()
        return listed
    }

    /// Returns the entries copied.
    @discardableResult
    private func copy(_ spool: String, to file: AtomicFile, emptyList: ArraySlice<UInt8>, keep: (UInt64) -> Bool) throws -> Int {
        var copied = 0
        try forEachEntry(spool) { id, body in
            guard keep(id) else { return }
            try file.write(copied > 0 ? ",\n" : "[\n")
            try file.write(body)
            copied += 1
        }
        try file.write(copied > 0 ? "\n  ]" : String(decoding: emptyList, as: UTF8.self))
        return copied
    }

    private func forEachEntry(_ spool: String, _ each: (UInt64, UnsafeRawBufferPointer) throws -> Void) throws {
        let reader: ScratchReader
        do {
            reader = try ScratchReader(path: spool)
        } catch {
            throw LibraryError.scratchIO(path: spool, reason: "cannot read the review spool")
        }
        let short = { LibraryError.scratchIO(path: spool, reason: "read: short read") }
        func word() throws -> UInt64? {
            try reader.next(8, damaged: short) { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
        }
        while let id = try word() {
            guard let length = try word(), try reader.next(Int(length), damaged: short, { try each(id, $0) }) != nil else {
                throw short()
            }
        }
    }
}
