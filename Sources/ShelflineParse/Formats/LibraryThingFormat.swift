import ShelflineCore

/// LibraryThing's export, TSV or CSV.
struct LibraryThingFormat: FixedSchemaFormat {
    var summary: String { "LibraryThing: the TSV or CSV export" }
    var authorCell: AuthorCell { .invertedName }
    var coauthorCell: CoauthorCell { .invertedList("|") }
    var shelfFromReadDates: Bool { true }

    static let schema = ExportSchema(
        format: .librarything,
        signature: [["book id", "book_id"], ["title"], ["primary author", "author (last, first)"]],
        columns: [
            .id: ["book id", "book_id"], .title: ["title"],
            .author: ["primary author", "author (last, first)", "author"],
            .additionalAuthors: ["secondary author", "other authors"], .publication: ["publication"],
            .publisher: ["publisher"], .binding: ["media"], .pages: ["page count", "pages"],
            .year: ["date", "publication date"], .rating: ["rating"], .review: ["review"],
            .notes: ["private comment", "comment", "comments"], .dateStarted: ["date started"],
            .dateRead: ["date read"], .dateAdded: ["entry date"], .shelves: ["tags"],
            .isbn: ["isbn"], .isbnList: ["isbns"], .owned: ["copies"], .bcid: ["bcid"],
        ])

}
