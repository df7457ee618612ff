import Foundation
import ShelflineCore
import ShelflineReports
import TestSupport
import Testing

@testable import ShelflineLibrary

/// Merge spools review.json's items and streams the file (its `JSONEncoder` tree was merge's peak
/// memory at 2,000,000 bench/library rows): the bytes must stay what `writeJSONFile` wrote.
@Suite struct ReviewSpoolTests {
    static let hostile = [
        "tab\there", "line\nbreak\r\n", "quote \" and \\ backslash", "slash /books/OL1M", "emoji 📚 and é",
        "", "]\"],[", "\u{0}\u{1F}", "\"items\" : [",
    ]

    static func item(_ index: Int) -> ReviewItem {
        let text = hostile[index % hostile.count]
        return ReviewItem(
            line: index + 2, bookId: "b\(index)", title: "Title \(text)", author: index.isMultiple(of: 3) ? nil : text,
            isbn13: index.isMultiple(of: 2) ? "97800000000\(index % 10)" : nil,
            candidates: index.isMultiple(of: 4)
                ? []
                : [
                    MatchCandidate(key: "/books/OL\(index)M", title: text, authors: [text, "Second"], score: 0.71),
                    MatchCandidate(key: "/books/OL\(index + 1)M", workKey: "/works/OL1W", title: "T", authors: [], score: 0.5),
                ])
    }

    /// `items` (book id, item) and `ruledOut` spooled and written keeping the even book ids (the
    /// others `settled` says listed as settled), and the same list written by `writeJSONFile`.
    static func bothWays(
        importId: String, items: [(UInt64, ReviewItem)], ruledOut: [ReviewItem], settled: (UInt64) -> Bool = { _ in false }
    ) throws -> (
        spooled: String, encoded: String, listed: Int
    ) {
        let directory = TemporaryDirectory("review-spool")
        let spool = try ReviewSpool(directory: directory.path)
        for (id, item) in items { try spool.append(item, book: id) }
        for item in ruledOut { try spool.append(item, book: nil) }
        let listed = try spool.write(
            importId: importId, to: directory.file("spooled.json"), keep: { $0.isMultiple(of: 2) }, settled: settled)
        let kept = items.filter { $0.0.isMultiple(of: 2) }.map(\.1)
        let decided = items.filter { !$0.0.isMultiple(of: 2) && settled($0.0) }.map(\.1)
        try writeJSONFile(
            ReviewList(importId: importId, items: kept, ruledOut: ruledOut, settled: decided), to: directory.file("encoded.json"))
        return (
            try String(contentsOfFile: directory.file("spooled.json"), encoding: .utf8),
            try String(contentsOfFile: directory.file("encoded.json"), encoding: .utf8), listed
        )
    }

    @Test func streamedReviewListIsByteIdenticalToTheEncodedOne() throws {
        // Enough items for several scratch flushes and reads.
        let items = (0..<3_000).map { (UInt64($0 * 7 % 1_000), Self.item($0)) }
        let ruledOut = (0..<40).map { Self.item($0 + 5) }
        let result = try Self.bothWays(importId: "import \"quoted\" / 1", items: items, ruledOut: ruledOut)
        #expect(result.spooled == result.encoded)
        #expect(result.listed == items.filter { $0.0.isMultiple(of: 2) }.count)
        #expect(result.spooled.contains("\"ruledOut\" : ["))
    }

    @Test(arguments: [(0, 0), (0, 3), (3, 0)])
    func streamedReviewListMatchesWhenAListIsEmpty(items itemCount: Int, ruledOut ruledOutCount: Int) throws {
        // Odd book ids: none of these items is kept, so `items` is empty in the file too.
        let items = (0..<itemCount).map { (UInt64($0 * 2 + 1), Self.item($0)) }
        let ruledOut = (0..<ruledOutCount).map { Self.item($0) }
        let result = try Self.bothWays(importId: "abc", items: items, ruledOut: ruledOut)
        #expect(result.spooled == result.encoded)
        #expect(result.listed == 0)
    }

    /// Items no longer listed whose book has a decision follow as `settled`, wherever they are in
    /// the spool; without any, the file has no `settled` list.
    @Test(arguments: [3, 49, 1_000])
    func settledItemsAreStreamedAsTheEncoderWritesThem(decided: UInt64) throws {
        let items = (0..<50).map { (UInt64($0), Self.item($0)) }
        let result = try Self.bothWays(importId: "abc", items: items, ruledOut: [], settled: { $0 == decided })
        #expect(result.spooled == result.encoded)
        #expect(result.spooled.contains("\"settled\" : [") == (decided < 50))
    }
}
