import ShelflineCore

/// StoryGraph's export file: its cell forms, in the order of `header` (codegen/fields.json).
enum StoryGraphExport {
    static let terminator = "\r\n"

    static func write(_ book: LibraryBook, to line: inout CSVLine) {
        line.cell(ExportCells.title(book))
        let author = ExportCells.value(book.author, "author", of: book)
        let others = ExportCells.value(book.additionalAuthors, "additionalAuthors", of: book)
        line.cell(ExportCells.joined([author].compactMap { $0 } + (others ?? [])))
        line.cell(book.contributors)
        let isbns = ExportCells.isbns(book)
        line.cell(isbns.isbn13 ?? isbns.isbn10 ?? book.asin)
        line.cell(book.binding)
        line.cell(book.shelf)
        line.cell(ExportCells.slashDate(book.dateAdded))
        line.cell(ExportCells.slashDate(ExportCells.lastFinished(book)))
        line.cell(ExportCells.datesRead(book))
        line.cell(book.readCount)
        line.cell(ExportCells.joined(book.moods))
        line.cell(book.pace)
        line.cell(book.characterOrPlotDriven)
        line.cell(book.strongCharacterDevelopment)
        line.cell(book.loveableCharacters)
        line.cell(book.diverseCharacters)
        line.cell(book.flawedCharacters)
        line.cell(ExportCells.stars(book.rating))
        line.cell(book.review)
        line.cell(book.contentWarnings)
        line.cell(book.contentWarningDescription)
        line.cell(ExportCells.joined(book.shelves))
        line.cell(book.owned == true || (book.ownedCopies ?? 0) > 0 ? "Yes" : "No")
        line.end(terminator)
    }
}
