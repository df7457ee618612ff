import ShelflineCore

/// A direct JSON writer for `LibraryBook`: keys in sorted order, absent values omitted, the same
/// bytes for the same book every time. Foundation's `JSONEncoder` was a third of merge's time.
extension LibraryBook {
    /// The book's JSON line (without newline).
    public var jsonLine: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        appendJSON(to: &out)
        return out
    }
}

/// Moves an array out of a variable, so appending to it does not copy it.
func take(_ array: inout [UInt8]) -> [UInt8] {
    var taken: [UInt8] = []
    swap(&taken, &array)
    return taken
}

// The arrays of objects, written out one by one rather than through a shared closure: the
// library is written for every import, and these three are on each of its books.
extension JSONObjectWriter {
    mutating func readSpans(_ name: StaticString, _ reads: [ReadSpan]?) {
        guard let reads else { return }
        key(name)
        out.append(UInt8(ascii: "["))
        for (index, span) in reads.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            var inner = JSONObjectWriter(out: take(&out))
            inner.string("end", span.end)
            inner.string("start", span.start)
            out = inner.finish()
        }
        out.append(UInt8(ascii: "]"))
    }

    mutating func shelfPositions(_ name: StaticString, _ positions: [ShelfPosition]?) {
        guard let positions else { return }
        key(name)
        out.append(UInt8(ascii: "["))
        for (index, item) in positions.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            var inner = JSONObjectWriter(out: take(&out))
            inner.int("position", item.position)
            inner.string("shelf", item.shelf)
            out = inner.finish()
        }
        out.append(UInt8(ascii: "]"))
    }

    mutating func contributions(_ name: StaticString, _ provenance: [Contribution]) {
        key(name)
        out.append(UInt8(ascii: "["))
        for (index, contribution) in provenance.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            var inner = JSONObjectWriter(out: take(&out))
            inner.strings("fields", contribution.fields)
            inner.string("format", contribution.format.rawValue)
            inner.string("importId", contribution.importId)
            inner.ints("lines", contribution.lines)
            inner.strings("rowIds", contribution.rowIds)
            out = inner.finish()
        }
        out.append(UInt8(ascii: "]"))
    }
}
