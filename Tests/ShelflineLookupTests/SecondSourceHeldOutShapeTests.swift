import Foundation
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineLookup

/// The held-out check's shape at test size: half the rows without ISBN, Open Library lacking a
/// fifth of the books, Google Books having most of those plus near misses (the same title by
/// another author, a companion volume, a sequel). Open Library first, then Google Books.
@Suite struct SecondSourceHeldOutShapeTests {
    /// Distinct title words per book (letters only: numbers would read as volume markers).
    static func word(_ index: Int) -> String {
        let letters = Array("bcdfghklmnprstvz")
        let vowels = Array("aeiou")
        return String([letters[index % 16], vowels[(index / 16) % 5], letters[(index / 80 + 3) % 16]]).capitalized + "wald"
    }

    struct Book {
        var index: Int
        var title: String
        var author: String
        var isbn: String
    }

    @Test(.bug(id: 39)) func secondSourceFillsWhatTheFirstLacksAndNeverAWrongBook() async throws {
        let books = (0..<60).map { index in
            Book(
                index: index, title: "Die Nacht im \(Self.word(index))", author: "Greta \(Self.word(index + 7))mann",
                isbn: LookupFixtures.isbn13(String(format: "978345%06d", 100 + index)))
        }
        let lacking = books.filter { $0.index % 5 == 0 }
        let onlyGoogle = lacking.filter { $0.index % 20 != 0 }  // Google lacks a few of them too
        var openLibraryBooks: [String: FakeOpenLibraryServer.Book] = [:]
        for book in books where book.index % 5 != 0 {
            openLibraryBooks[book.isbn] = .init(
                key: "/books/OL\(book.index)M", title: book.title, authors: [book.author], work: "/works/OL\(book.index)W")
        }
        var volumes: [FakeGoogleBooksServer.Volume] = []
        for book in lacking {
            if onlyGoogle.contains(where: { $0.index == book.index }) {
                volumes.append(.init(id: "right\(book.index)", title: book.title, authors: [book.author], isbn13: book.isbn))
                volumes.append(
                    .init(
                        id: "sequel\(book.index)", title: book.title + " Zweiter Teil", authors: [book.author],
                        isbn13: LookupFixtures.isbn13(String(format: "978346%06d", 100 + book.index))))
            }
            volumes.append(
                .init(
                    id: "wrong\(book.index)", title: book.title, authors: ["Otto Anderer"],
                    isbn13: LookupFixtures.isbn13(String(format: "978347%06d", 100 + book.index))))
            volumes.append(
                .init(
                    id: "companion\(book.index)", title: book.title + " Begleitbuch", authors: ["Greta Anders"],
                    isbn13: nil))
        }
        let openLibrary = try await FakeOpenLibraryServer(books: openLibraryBooks)
        defer { Task { try? await openLibrary.shutdown() } }
        let google = try await FakeGoogleBooksServer(volumes: volumes)
        defer { Task { try? await google.shutdown() } }
        let records = books.map { book in
            LookupFixtures.record(
                line: book.index + 2, title: book.title, author: book.author,
                isbn13: book.index % 2 == 0 ? nil : book.isbn)
        }
        let parameters = GoogleBooksSourceTests.parameters(
            google.baseURL, sources: ["openlibrary", "googlebooks"], openLibrary: openLibrary.baseURL)
        let run = try await OpenLibrarySourceTests.run(records, parameters: parameters, in: TemporaryDirectory("held-out-shape"))

        var wrong: [String] = []
        var accepted = Set<Int>()
        for (book, record) in zip(books, run.records) {
            guard let match = record.match, [.matchedByIsbn, .matchedBySearch].contains(match.status) else { continue }
            let right = match.source == "openlibrary" ? "/books/OL\(book.index)M" : "right\(book.index)"
            let workOnly = match.source == "openlibrary" && match.editionKey == nil && match.workKey == "/works/OL\(book.index)W"
            if match.editionKey == right || workOnly {
                accepted.insert(book.index)
            } else {
                wrong.append("\(book.title): \(match)")
            }
        }
        #expect(wrong == [], "0 wrong books from either source")
        let onlyGoogleIndexes = Set(onlyGoogle.map(\.index))
        let either = books.filter { $0.index % 5 != 0 || onlyGoogleIndexes.contains($0.index) }
        #expect(Double(accepted.count) >= 0.95 * Double(either.count), "\(accepted.count) of \(either.count)")
        let fromGoogle = onlyGoogle.filter { accepted.contains($0.index) }
        #expect(Double(fromGoogle.count) >= 0.9 * Double(onlyGoogle.count), "\(fromGoogle.count) of \(onlyGoogle.count)")
        #expect(lacking.filter { $0.index % 20 == 0 }.allSatisfy { !accepted.contains($0.index) })
    }
}
