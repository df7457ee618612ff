import ShelflineCore

/// A direct JSON writer for `LibraryBook`: keys in sorted order, absent values omitted, the same
/// bytes for the same book every time. Foundation's `JSONEncoder` was a third of merge's time.
extension LibraryBook {
    /// Appends the book as one compact JSON object (no newline).
    public func appendJSON(to out: inout [UInt8]) {
        var writer = JSONObjectWriter(out: take(&out))
        writer.strings("additionalAuthors", additionalAuthors)
        writer.string("asin", asin)
        writer.string("author", author)
        writer.string("bcid", bcid)
        writer.string("binding", binding)
        writer.string("characterOrPlotDriven", characterOrPlotDriven)
        writer.string("condition", condition)
        writer.string("conditionDescription", conditionDescription)
        writer.string("contentWarningDescription", contentWarningDescription)
        writer.string("contentWarnings", contentWarnings)
        writer.string("contributors", contributors)
        writer.int("coverId", coverId)
        writer.string("coverURL", coverURL)
        writer.string("dateAdded", dateAdded)
        writer.string("diverseCharacters", diverseCharacters)
        writer.string("editionKey", editionKey)
        writer.string("enrichment", enrichment)
        writer.string("enrichmentSource", enrichmentSource)
        writer.string("flawedCharacters", flawedCharacters)
        writer.string("id", id)
        writer.stringMap("identifiers", identifiers)
        writer.string("isbn10", isbn10)
        writer.string("isbn13", isbn13)
        writer.string("isbnAsWritten", isbnAsWritten)
        writer.strings("keys", keys)
        writer.string("loveableCharacters", loveableCharacters)
        writer.strings("metadataFields", metadataFields)
        writer.strings("moods", moods)
        writer.bool("needsReview", needsReview)
        writer.string("notes", notes)
        writer.int("originalYear", originalYear)
        writer.bool("owned", owned)
        writer.int("ownedCopies", ownedCopies)
        writer.string("pace", pace)
        writer.int("pages", pages)
        writer.key("provenance")
        writer.out.append(UInt8(ascii: "["))
        for (index, contribution) in provenance.enumerated() {
            if index > 0 { writer.out.append(UInt8(ascii: ",")) }
            var inner = JSONObjectWriter(out: take(&writer.out))
            inner.strings("fields", contribution.fields)
            inner.string("format", contribution.format.rawValue)
            inner.string("importId", contribution.importId)
            inner.ints("lines", contribution.lines)
            inner.strings("rowIds", contribution.rowIds)
            writer.out = inner.finish()
        }
        writer.out.append(UInt8(ascii: "]"))
        writer.string("publisher", publisher)
        writer.string("purchaseDate", purchaseDate)
        writer.string("purchaseLocation", purchaseLocation)
        writer.double("rating", rating)
        writer.int("readCount", readCount)
        if let reads {
            writer.key("reads")
            writer.out.append(UInt8(ascii: "["))
            for (index, span) in reads.enumerated() {
                if index > 0 { writer.out.append(UInt8(ascii: ",")) }
                var inner = JSONObjectWriter(out: take(&writer.out))
                inner.string("end", span.end)
                inner.string("start", span.start)
                writer.out = inner.finish()
            }
            writer.out.append(UInt8(ascii: "]"))
        }
        writer.string("recommendedBy", recommendedBy)
        writer.string("recommendedFor", recommendedFor)
        writer.string("review", review)
        writer.string("reviewDecision", reviewDecision)
        writer.string("series", series)
        writer.string("seriesPosition", seriesPosition)
        writer.string("shelf", shelf)
        if let shelfPositions {
            writer.key("shelfPositions")
            writer.out.append(UInt8(ascii: "["))
            for (index, item) in shelfPositions.enumerated() {
                if index > 0 { writer.out.append(UInt8(ascii: ",")) }
                var inner = JSONObjectWriter(out: take(&writer.out))
                inner.int("position", item.position)
                inner.string("shelf", item.shelf)
                writer.out = inner.finish()
            }
            writer.out.append(UInt8(ascii: "]"))
        }
        writer.strings("shelves", shelves)
        writer.bool("spoiler", spoiler)
        writer.string("strongCharacterDevelopment", strongCharacterDevelopment)
        writer.string("subtitle", subtitle)
        writer.string("title", title)
        writer.string("titleAsWritten", titleAsWritten)
        writer.string("workKey", workKey)
        writer.int("year", year)
        out = writer.finish()
    }

    /// The book's JSON line (without newline).
    public var jsonLine: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(1024)
        appendJSON(to: &out)
        return out
    }
}

/// Moves an array out of a variable, so appending to it does not copy it.
private func take(_ array: inout [UInt8]) -> [UInt8] {
    var taken: [UInt8] = []
    swap(&taken, &array)
    return taken
}
