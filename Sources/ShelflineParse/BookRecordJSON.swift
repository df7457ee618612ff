import Foundation
import ShelflineCore

/// Writes a `BookRecord` as one JSON line, byte for byte what `JSONEncoder.shelfline` writes.
///
/// Hand-written: through `JSONEncoder` the stage took three to five times as long
/// (docs/performance.md). Records with later stages' annotations fall back to `JSONEncoder`.
public struct BookRecordJSON {
    private var line = LineBuffer(capacity: 1 << 14)
    /// The texts line of the last record encoded with its texts apart (`RecordTexts`).
    private var textsLine = LineBuffer(capacity: 1 << 14)
    private(set) var wroteTexts = false

    public init() {}

    /// The last encoded line.
    public var bytes: [UInt8] { Array(line.contents) }

    /// The last encoded line, or with `texts` its texts line.
    func withBytes<Result>(texts: Bool = false, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(texts ? textsLine.contents : line.contents))
    }

    /// `textsApart`: a review or notes go to the texts line instead, and the record says so.
    mutating func encode(_ record: ParsedRecord, textsApart: Bool = false) {
        line.removeAll()
        let apart = textsApart && (record.review != nil || record.notes != nil)
        wroteTexts = apart
        record.cells.withUnsafeBufferPointer { cells in
            members(record, cells, apart: apart)
            line.append(UInt8(ascii: "}"))
            guard apart else { return }
            swap(&line, &textsLine)
            defer { swap(&line, &textsLine) }
            line.removeAll()
            var inner = true
            // The row, as the record names it: merge checks both come from one parse (`RecordTexts`).
            key("byteLength", &inner); integer(record.byteLength)
            key("byteOffset", &inner); integer(record.byteOffset)
            key("line", &inner); integer(record.line)
            if let value = record.notes { key("notes", &inner); text(value, cells) }
            if let value = record.review { key("review", &inner); text(value, cells) }
            line.append(UInt8(ascii: "}"))
        }
    }

    mutating func stringMap(_ value: [String: String]) {
        line.append(UInt8(ascii: "{"))
        for (index, (scheme, identifier)) in value.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { line.append(UInt8(ascii: ",")) }
            string(scheme)
            line.append(UInt8(ascii: ":"))
            string(identifier)
        }
        line.append(UInt8(ascii: "}"))
    }

    mutating func readSpans(_ value: [ReadSpan]) {
        line.append(UInt8(ascii: "["))
        for (index, span) in value.enumerated() {
            if index > 0 { line.append(UInt8(ascii: ",")) }
            var inner = true
            if let end = span.end { key("end", &inner); string(end) }
            if let start = span.start { key("start", &inner); string(start) }
            if inner { line.append(UInt8(ascii: "{")) }
            line.append(UInt8(ascii: "}"))
        }
        line.append(UInt8(ascii: "]"))
    }

    /// Only the positions when the list lines up with `shelves` (`ShelfPosition.aligned`).
    mutating func shelfPositions(_ value: [ShelfPosition], shelves: [FieldText]?, _ cells: UnsafeBufferPointer<UInt8>) {
        line.append(UInt8(ascii: "["))
        let aligned = shelves.map { Self.linesUp(value, $0, cells) } ?? false
        for (index, item) in value.enumerated() {
            if index > 0 { line.append(UInt8(ascii: ",")) }
            if aligned {
                if let position = item.position { integer(position) } else { literal("null") }
                continue
            }
            var inner = true
            if let position = item.position { key("position", &inner); integer(position) }
            key("shelf", &inner); string(item.shelf)
            line.append(UInt8(ascii: "}"))
        }
        line.append(UInt8(ascii: "]"))
    }

    private static func linesUp(_ positions: [ShelfPosition], _ shelves: [FieldText], _ cells: UnsafeBufferPointer<UInt8>) -> Bool
    {
        guard positions.count == shelves.count else { return false }
        for (item, shelf) in zip(positions, shelves) {
            let same =
                switch shelf {
                case .cell(let range): item.shelf.utf8.elementsEqual(cells[range])
                case .string(let text): item.shelf.utf8.elementsEqual(text.utf8)
                }
            if !same { return false }
        }
        return true
    }

    @inline(__always)
    mutating func key(_ name: StaticString, _ first: inout Bool) {
        line.append(first ? UInt8(ascii: "{") : UInt8(ascii: ","))
        first = false
        line.append(UInt8(ascii: "\""))
        line.appendBytes(UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        line.append(UInt8(ascii: "\""))
        line.append(UInt8(ascii: ":"))
    }

    mutating func literal(_ text: StaticString) {
        line.appendBytes(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func integer(_ value: Int) {
        if value >= 0 && value < 10 {
            line.append(UInt8(48 + value))
            return
        }
        var magnitude = value.magnitude
        if value < 0 { line.append(UInt8(ascii: "-")) }
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8, UInt8, UInt8, UInt8, UInt8
            ) = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[19 - count] = UInt8(48 + magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            line.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[(20 - count)...]))
        }
    }

    /// As Foundation writes them: `4`, `3.75`.
    mutating func double(_ value: Double) {
        if value == value.rounded(), abs(value) < 1e15 {
            integer(Int(value))
        } else {
            line.append(contentsOf: "\(value)".utf8)
        }
    }

    mutating func texts(_ values: [FieldText], _ cells: UnsafeBufferPointer<UInt8>) {
        line.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { line.append(UInt8(ascii: ",")) }
            text(value, cells)
        }
        line.append(UInt8(ascii: "]"))
    }

    @inline(__always)
    mutating func text(_ value: FieldText, _ cells: UnsafeBufferPointer<UInt8>) {
        switch value {
        case .cell(let range): string(UnsafeBufferPointer(rebasing: cells[range]))
        case .string(let value): string(value)
        }
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { string($0) }
    }

    @inline(__always)
    mutating func string(_ utf8: UnsafeBufferPointer<UInt8>) {
        line.reserveBytes(utf8.count * 6 + 2)  // every byte escaped as \u00XX at worst
        JSONString.append(utf8, to: &line)
    }
}

/// The bytes of one JSON line. Not `[UInt8]`: on a record's ~200 small appends, Array's uniqueness
/// and capacity checks measured about as costly as the JSON writing itself.
final class LineBuffer: JSONByteSink {
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    var contents: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    func removeAll() { count = 0 }

    @inline(__always)
    func reserveBytes(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    private func grow(to minimum: Int) {
        let newCapacity = max(minimum, capacity * 2)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        reserveBytes(1)
        base[count] = byte
        count += 1
    }

    @inline(__always)
    func appendBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return }
        reserveBytes(bytes.count)
        (base + count).update(from: start, count: bytes.count)
        count += bytes.count
    }

    func append(contentsOf bytes: UnsafeRawBufferPointer) {
        appendBytes(bytes.bindMemory(to: UInt8.self))
    }

    func append(contentsOf bytes: some Sequence<UInt8>) {
        for byte in bytes { append(byte) }
    }
}
