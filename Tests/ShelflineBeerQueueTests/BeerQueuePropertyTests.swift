import Foundation
import PropertyBased
import ShelflineActivity
import ShelflineCore
import TestSupport
import Testing

@testable import ShelflineBeerQueue

/// Issue 10 fuzzing, as property-based tests in `make test`: random pages built from the markup the
/// parser cares about (and the bytes that hurt parsers) must never crash it, and whatever it accepts
/// must render to a snapshot whose APNs body is valid JSON of at most 4,096 bytes, with no control
/// character, in which every row is either listed or counted as skipped.
@Suite struct BeerQueuePropertyTests {
    static let fragments: [String] = [
        "<h3 class=\"brewName\">", "<H3 CLASS='x brewName'>", "</h3>", "<div class=\"brew_added_date\">", "</div>", "<div>",
        "<a href=\"deleteQueuedBrew.php?cid=4418210\">", "<a href='deleteQueuedBrew.php?cid=7&amp;x=1'>",
        "<a href=\"deleteQueuedBrew.php?cid=\">",
        "<a href=deleteQueuedBrew.php?cid=12a>", "</a>", "<p>", "</p>", "<span>", "</span>", "<br>", "<br/>", "<img src=x>",
        "No brew in queue", "<input type=\"password\">", "<!--", "-->", "<script>", "</script>", "<style>", "</style>",
        "<!DOCTYPE html>", "<html>", "</html>", "<body>", "</body>", "<", ">", "&", "&amp;", "&#0;", "&#x0;", "&#1;", "&#x1b;",
        "&#x85;", "&#x9f;", "&#xD800;", "&#99999999999;", "&#128;", "&nbsp;", "&bogus;", "\u{0}", "\u{7}", "\u{1B}[2J",
        "\u{85}", "\u{202E}", "\"", "'", "\\", "=", " ", "\n", "\t", "Founders KBS (2024) (CAN)", "(16oz Can)", "(Draft)",
        "🍺", "👩‍👩‍👧‍👦", "é", "\u{301}", "בירה", String(repeating: "Long Name ", count: 300), "Apr 08, 2025 @ 03:10:18pm",
    ]

    static let pages = Gen<String?>.element(of: fragments).map { $0! }.array(of: 0...120).map { $0.joined() }
    static let noise = Gen.latin1.string(of: 0...400)

    /// Well-formed rows around the random ones, so that accepted pages are common.
    static func framed(_ middle: String, rows: Int) -> String {
        var page = "<!DOCTYPE html><html><body><div id=\"queue\">"
        for index in 0..<rows {
            page +=
                "<h3 class=\"brewName\">Beer \(index) (Draft)<div class=\"brew_added_date\">Apr 08, 2025</div></h3>"
                + "<a href=\"deleteQueuedBrew.php?cid=\(1000 + index)\">Remove</a>"
        }
        return page + middle + "</div></body></html>"
    }

    /// Yields first: hundreds of checks in a row must not keep Swift's cooperative threads from the
    /// loopback servers that end-to-end tests run in the same process.
    func check(_ html: String) async throws {
        await Task.yield()
        let reading: BeerQueueReading
        do {
            reading = try BeerQueuePage.parse(html, source: "fuzz")
        } catch let error as BeerQueueError {
            // A refusal is fine: it is one line, exit 65.
            #expect(ExitStatus(for: error) == .dataError)
            #expect(!"\(error)".contains("\n"), "one line")
            return
        }
        guard case .queue(let beers, let skipped) = reading else { return }
        let headings = html.lowercased().components(separatedBy: "<h3").count - 1
        #expect(beers.count + skipped.count <= headings, "never more rows than headings")
        #expect(Set(beers.map(\.id)).count == beers.count, "ids are unique")
        #expect(beers.allSatisfy { !$0.id.isEmpty && $0.id.allSatisfy(\.isNumber) && !$0.name.isEmpty })

        let temp = TemporaryDirectory("render-prop")
        let renderer = BeerQueueRenderer(
            workspace: Workspace(root: temp.file("ws")),
            attributes: BeerQueueAttributes(memberId: "123456", storeId: "13888"),
            storeLocation: "Example Saucer")
        let outcome = try renderer.render(.queue(beers), now: Date(timeIntervalSince1970: 1_760_000_000), userTriggered: false)
        guard let snapshot = outcome.snapshot else {
            #expect(beers.isEmpty)
            return
        }
        let body = try snapshot.apns.encoded()
        #expect(body.count <= ShelflineActivity.maximumPushBodyBytes, "APNs body \(body.count) bytes")
        let json = try JSONSerialization.jsonObject(with: body)
        #expect(json is [String: Any], "the body is a JSON object")
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: renderer.store.snapshotPath)), as: UTF8.self)
        #expect(!text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) })
        #expect(!text.contains("\\u0000"))
        #expect(snapshot.contentState.queueCount == beers.count)
    }

    @Test(.bug(id: 10)) func markupFragmentsAreReadOrRefusedCleanly() async throws {
        await propertyCheck(count: 300, input: Self.pages) { page in try await check(page) }
    }

    @Test(.bug(id: 10)) func framedFragmentsAreReadOrRefusedCleanly() async throws {
        await propertyCheck(count: 200, input: Self.pages, Gen.int(in: 0...8)) { middle, rows in
            try await check(Self.framed(middle, rows: rows))
        }
    }

    @Test(.bug(id: 10)) func latin1NoiseIsReadOrRefusedCleanly() async throws {
        await propertyCheck(count: 200, input: Self.noise, Gen.int(in: 0...3)) { noise, rows in
            try await check(noise)
            try await check(Self.framed(noise, rows: rows))
        }
    }
}
