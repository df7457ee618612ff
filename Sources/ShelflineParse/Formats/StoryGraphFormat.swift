import ShelflineCore

/// The StoryGraph's CSV export.
struct StoryGraphFormat: FixedSchemaFormat {
    var summary: String { "StoryGraph: the CSV export (23 columns)" }
    var authorCell: AuthorCell { .list() }

    static let schema = ExportSchema(
        format: .storygraph,
        signature: [["title"], ["authors"], ["isbn/uid"], ["read status"]],
        columns: [
            .title: ["title"], .author: ["authors"], .isbn: ["isbn/uid"], .binding: ["format"],
            .shelf: ["read status"], .dateAdded: ["date added"], .dateRead: ["dates read"],
            .lastDateRead: ["last date read"], .readCount: ["read count"], .rating: ["star rating"],
            .review: ["review"], .shelves: ["tags"], .owned: ["owned?"],
            .contributors: ["contributors"], .moods: ["moods"], .pace: ["pace"],
            .characterOrPlotDriven: ["character- or plot-driven?"],
            .strongCharacterDevelopment: ["strong character development?"],
            .loveableCharacters: ["loveable characters?"], .diverseCharacters: ["diverse characters?"],
            .flawedCharacters: ["flawed characters?"], .contentWarnings: ["content warnings"],
            .contentWarningDescription: ["content warning description"],
        ])

    static let columns = [
        "Title", "Authors", "Contributors", "ISBN/UID", "Format", "Read Status", "Date Added", "Last Date Read",
        "Dates Read", "Read Count", "Moods", "Pace", "Character- or Plot-Driven?", "Strong Character Development?",
        "Loveable Characters?", "Diverse Characters?", "Flawed Characters?", "Star Rating", "Review",
        "Content Warnings", "Content Warning Description", "Tags", "Owned?",
    ]

    var headerlessColumns: [[String]] { [Self.columns] }

    func looksLikeDataRow(_ cells: [String]) -> Bool {
        guard cells.count == Self.columns.count else { return false }
        let statuses = ["read", "to-read", "currently-reading", "did-not-finish", "paused"]
        return DataRowCell.filled(cells[0]) && DataRowCell.filled(cells[1]) && DataRowCell.isbnLike(cells[3])
            && statuses.contains(ExportSchema.key(cells[5]))
    }
}
