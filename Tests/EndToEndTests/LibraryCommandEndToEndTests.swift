import Foundation
import ShelflineCore
import TestSupport
import TestTraits
import Testing

/// `shelfline library list/show/stats` through the built executable, on a library whose values hold
/// terminal escape sequences (as a CSV or the catalog can bring them).
@Suite(.offCooperativePool) struct LibraryCommandEndToEndTests {
    let temp = TemporaryDirectory("library-command")

    /// Sets the terminal's title, clears the screen, hides text (SGR 8 through C1 CSI), and a
    /// carriage return that would overwrite the line.
    static let hostileTitle = "Evil\u{1B}]0;pwned\u{07}\u{1B}[2J\u{009B}8mhidden\rX"
    static let hostileAuthor = "A\u{1B}[31mred\u{7F}"
    static let hostileShelf = "tag\u{1B}[1A"

    /// A workspace whose library holds one book with control characters in its title, author,
    /// shelves and provenance, and one plain book.
    func workspace() throws -> String {
        let workspace = temp.file("ws")
        try FileManager.default.createDirectory(atPath: workspace + "/library", withIntermediateDirectories: true)
        let books: [[String: Any]] = [
            [
                "id": "b0000000000000001", "keys": ["t:evil"], "title": Self.hostileTitle, "author": Self.hostileAuthor,
                "shelf": "read", "shelves": [Self.hostileShelf], "rating": 4, "reads": [["end": "2024-05-01"]],
                "provenance": [["importId": "imp\u{1B}[2K", "format": "goodreads", "lines": [2], "fields": ["created"]]],
            ],
            [
                "id": "b0000000000000002", "keys": ["t:plain"], "title": "Plain", "shelf": "to-read",
                "provenance": [["importId": "imp", "format": "goodreads", "lines": [3], "fields": ["created"]]],
            ],
        ]
        let lines = try books.map {
            String(decoding: try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]), as: UTF8.self)
        }
        try GzipFixture.write(text: lines.joined(separator: "\n") + "\n", to: workspace + "/library/library.ndjson.gz")
        return workspace
    }

    func library(_ arguments: [String], _ workspace: String) throws -> ProcessResult {
        let config = try ConfigFile.shippedExample().write(to: temp.file("pipeline.json"))
        return try ExecutableRunner.run("shelfline", ["library"] + arguments + ["--workspace", workspace, "--config", config])
    }

    /// Any scalar a terminal acts on other than the line ends the output is made of.
    static func controlCharacters(_ text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter { $0 != "\n" && ($0.value < 0x20 || (0x7F...0x9F).contains($0.value)) }
    }

    @Test(.bug(id: 36)) func textOutputShowsControlCharactersEscapedAndJSONKeepsThemExact() throws {
        let workspace = try workspace()
        for arguments in [["list"], ["list", "--shelf", Self.hostileShelf], ["show", "b0000000000000001"], ["stats"]] {
            let result = try library(arguments, workspace)
            #expect(result.status == 0, "\(arguments): \(result)")
            #expect(
                Self.controlCharacters(result.stdout).isEmpty, "\(arguments) printed raw \(Self.controlCharacters(result.stdout))"
            )
        }
        let list = try library(["list"], workspace).stdout
        let escapedTitle = #"Evil\u{1B}]0;pwned\u{07}\u{1B}[2J\u{009B}8mhidden\rX"#
        #expect(list.contains(escapedTitle + #" — A\u{1B}[31mred\u{7F}"#), "\(list)")
        #expect(list.split(separator: "\n").count == 2, "one line per book: \(list)")

        let show = try library(["show", "b0000000000000001"], workspace).stdout
        let lines = show.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first.map(String.init) == escapedTitle + #" — A\u{1B}[31mred\u{7F}"#, "the header: \(show)")
        #expect(show.contains(#"import imp\u{1B}[2K (goodreads, line 2): created the book"#), "\(show)")

        let stats = try library(["stats"], workspace).stdout
        #expect(stats.contains(#"  tag\u{1B}[1A"#), "\(stats)")

        // --json: the exact text.
        let json = try library(["list", "--json"], workspace).stdout
        let first = try #require(json.split(separator: "\n").first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])
        #expect(object["title"] as? String == Self.hostileTitle && object["author"] as? String == Self.hostileAuthor)
        let shown = try library(["show", "b0000000000000001", "--json"], workspace).stdout
        let book = try #require(try JSONSerialization.jsonObject(with: Data(shown.utf8)) as? [String: Any])
        #expect(book["title"] as? String == Self.hostileTitle)
        let statsJSON = try library(["stats", "--json"], workspace).stdout
        let counts = try #require(try JSONSerialization.jsonObject(with: Data(statsJSON.utf8)) as? [String: Any])
        #expect((counts["shelves"] as? [String: Int])?[Self.hostileShelf] == 1)
    }
}
