import ShelflineCore

/// Sorted keys, absent values omitted, by hand: `JSONEncoder` was a third of merge's time.
extension LibraryBook {
    /// Without newline.
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

// On every book of every library written: `objects` is inlined into each, its closure with it.
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
