import ShelflineCore

/// Goodreads' current "Export Library" file: its cell forms, in the order of `header` (codegen/fields.json).
enum GoodreadsExport {
    /// The last line's too.
    static let terminator = "\n"

    /// One of these in `Bookshelves` that is not the book's exclusive shelf is a state the book has left.
    static let exclusive: Set<String> = ["read", "currently-reading", "to-read", "did-not-finish"]

    static func write(_ book: LibraryBook, to line: inout CSVLine) {
        line.cell(ExportCells.rowId(book, format: .goodreads))
        line.cell(ExportCells.title(book))
        let author = ExportCells.value(book.author, "author", of: book)
        line.cell(author)
        line.cell(ExportCells.lastFirst(author))
        line.cell(ExportCells.joined(ExportCells.value(book.additionalAuthors, "additionalAuthors", of: book)))
        let isbns = ExportCells.isbns(book)
        line.cell("=\"\(isbns.isbn10 ?? book.asin ?? "")\"")  // Goodreads writes a Kindle edition's ASIN there
        line.cell("=\"\(isbns.isbn13 ?? "")\"")
        line.cell(ExportCells.wholeStars(book.rating))
        line.cell(nil as String?)  // Average Rating: Goodreads' readers', not the user's
        line.cell(ExportCells.value(book.publisher, "publisher", of: book))
        line.cell(book.binding)
        line.cell(ExportCells.value(book.pages, "pages", of: book))
        line.cell(ExportCells.value(book.year, "year", of: book))
        line.cell(book.originalYear)
        line.cell(ExportCells.slashDate(ExportCells.lastFinished(book)))
        line.cell(ExportCells.slashDate(book.dateAdded))
        let shelves = shelfList(book)
        line.cell(ExportCells.joined(shelves.map(\.shelf)))
        line.cell(ExportCells.joined(shelves.compactMap { item in item.position.map { "\(item.shelf) (#\($0))" } }))
        line.cell(book.shelf)
        line.cell(book.review)
        line.cell(book.spoiler == true ? "true" : nil)
        line.cell(book.notes)
        line.cell(book.readCount)
        line.cell(book.ownedCopies ?? (book.owned == true ? 1 : 0))
        line.end(terminator)
    }

    /// The shelves as its Goodreads export listed them, with positions, then other imports' (sorted, no
    /// position). A reading state the book has left is dropped unless the newest Goodreads row listed it.
    static func shelfList(_ book: LibraryBook) -> [ShelfPosition] {
        var list = book.shelfPositions ?? []
        let listed = Set(list.map(\.shelf))
        for shelf in book.shelves ?? [] where !listed.contains(shelf) && (!exclusive.contains(shelf) || shelf == book.shelf) {
            list.append(ShelfPosition(shelf: shelf))
        }
        return list
    }
}
