import Foundation
import ShelflineCore
import ShelflineLookup

/// A made-up metadata source, written as docs/ARCHITECTURE.md's "Adding a metadata source" says:
/// one type conforming to `RegisteredSource`, and nothing else of the product edited. It answers
/// from an in-memory table, by ISBN, by title and author, and by its own ids (`TOY-1`), with cover
/// URLs of its own.
struct ToySource: RegisteredSource {
    static let sourceName = "toy"
    static let section = "toy"

    /// Its section of the lookup parameters: `{"toy": {"maxCandidates": 3}}`.
    struct Settings: SourceSettings {
        /// Candidates one title/author search returns at most.
        var maxCandidates = Settings.defaultMaxCandidates
        static let defaultMaxCandidates = 3

        static let ranges: [String: ConfigLimits.Range] = ["maxCandidates": .within(1, 10)]
    }

    let settings: Settings

    static func make(_ settings: Settings, setup: SourceSetup) throws -> ToySource? { ToySource(settings: settings) }

    var isRemote: Bool { false }
    var isbnBatchSize: Int { 10 }

    /// The books it knows.
    static let table: [EditionMetadata] = [
        edition(
            "TOY-1", title: "Il nome della rosa", author: "Umberto Eco", isbn13: "9788845292613", publisher: "Bompiani",
            pages: 503, year: 1980),
        edition(
            "TOY-2", title: "Le città invisibili", author: "Italo Calvino", isbn13: "9788804382126", publisher: "Einaudi",
            pages: 164, year: 1972),
    ]

    static func edition(
        _ id: String, title: String, author: String, isbn13: String, publisher: String, pages: Int, year: Int
    ) -> EditionMetadata {
        var edition = EditionMetadata(source: sourceName)
        edition.editionKey = id
        edition.title = title
        edition.authors = [author]
        edition.isbn13 = isbn13
        edition.publishers = [publisher]
        edition.pages = pages
        edition.year = year
        edition.coverURL = "https://toy.example/covers/\(id).jpg"
        return edition
    }

    func editions(isbns: [String]) async throws -> [String: EditionMetadata] {
        var found: [String: EditionMetadata] = [:]
        for isbn in isbns { found[isbn] = Self.table.first { $0.isbn13 == isbn } }
        return found
    }

    func candidates(title: String, author: String?, limit: Int) async throws -> [EditionMetadata] {
        let hits = Self.table.filter { edition in
            edition.title?.range(of: title, options: [.caseInsensitive, .diacriticInsensitive]) != nil
        }
        return Array(hits.prefix(min(limit, settings.maxCandidates)))
    }

    func editions(ids: [String]) async throws -> [String: EditionMetadata] {
        var found: [String: EditionMetadata] = [:]
        for id in ids { found[id] = Self.table.first { $0.editionKey == id } }
        return found
    }
}
