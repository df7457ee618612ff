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

// The arrays of objects: the library is written for every import, and these three are on each of
// its books, so `objects` is inlined into each (its closure with it).
extension JSONObjectWriter {
    mutating func readSpans(_ name: StaticString, _ reads: [ReadSpan]?) {
        objects(name, reads) { inner, span in
            inner.string("end", span.end)
            inner.string("start", span.start)
        }
    }

    mutating func shelfPositions(_ name: StaticString, _ positions: [ShelfPosition]?) {
        objects(name, positions) { inner, item in
            inner.int("position", item.position)
            inner.string("shelf", item.shelf)
        }
    }

    mutating func contributions(_ name: StaticString, _ provenance: [Contribution]) {
        objects(name, provenance) { inner, contribution in
            inner.strings("fields", contribution.fields)
            inner.string("format", contribution.format.rawValue)
            inner.string("importId", contribution.importId)
            inner.ints("lines", contribution.lines)
            inner.strings("rowIds", contribution.rowIds)
        }
    }

    /// `items` as a list of objects, each written by `write`.
    @inline(__always)
    private mutating func objects<Item>(
        _ name: StaticString, _ items: [Item]?, _ write: (inout JSONObjectWriter, Item) -> Void
    ) {
        guard let items else { return }
        key(name)
        out.append(UInt8(ascii: "["))
        for (index, item) in items.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            var inner = JSONObjectWriter(out: take(&out))
            write(&inner, item)
            out = inner.finish()
        }
        out.append(UInt8(ascii: "]"))
    }
}
