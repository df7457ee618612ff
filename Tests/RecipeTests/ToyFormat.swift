import ShelflineCore

@testable import ShelflineParse

/// A made-up export, written as docs/ARCHITECTURE.md's "Adding an import format" says: one type
/// conforming to `ImportFormat`, and nothing else of the product edited. Its columns are Italian
/// (`Libro,Autore,Codice,Voto,Stato,Umore`); `Stato` is a reading state in its own words, read by
/// `readOwnCells`; `Umore` (the reader's mood) is what it cannot carry.
struct ToyFormat: ImportFormat {
    var name: SourceFormat { "toy" }
    var summary: String { "Toy: a made-up Italian export (Libro, Autore, Codice, Voto)" }

    static let schema = ExportSchema(
        format: "toy",
        signature: [["libro"], ["autore"], ["codice"]],
        columns: [.title: ["libro"], .author: ["autore"], .isbn: ["codice"], .rating: ["voto"]],
        own: [["stato"]])

    func schema(_ parameters: ParseParameters) -> ExportSchema { Self.schema }

    var cannotCarry: [String: String] { ["umore": "the reader's mood; no field holds it"] }

    func readOwnCells(_ cells: OwnCells, into record: inout ParsedRecord) -> String? {
        switch cells.string(0).map(ExportSchema.key) {
        case "letto"?: record.shelf = .string(ShelfName.read)
        case "da leggere"?: record.shelf = .string(ShelfName.toRead)
        case "in lettura"?: record.shelf = .string(ShelfName.currentlyReading)
        case "scartato"?: return "discarded in the toy app: not imported"
        default: break
        }
        return nil
    }
}
