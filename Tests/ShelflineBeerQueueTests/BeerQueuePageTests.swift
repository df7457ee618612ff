import Foundation
import ShelflineActivity
import ShelflineBeerQueue
import ShelflineCore
import Testing

@Suite struct BeerQueuePageTests {
    func parse(_ name: String) throws -> BeerQueueReading {
        try BeerQueuePage.parse(try Fixtures.example(name), source: name)
    }

    /// Whitespace between every tag, attributes split over lines, entities, container labels, and
    /// decoys in a comment, a style sheet and a script.
    @Test(.bug(id: 6)) func readsAQueuePageWithEveryMarkupRule() throws {
        let reading = try parse("queue.html")
        #expect(
            reading
                == .queue([
                    QueuedBeer(id: "4418210", name: "Founders KBS (2024)", date: "Apr 08, 2025 @ 03:10:18pm"),
                    QueuedBeer(id: "4418377", name: "Bell's Two Hearted Ale", date: "Apr 09, 2025 @ 11:02:55am"),
                    QueuedBeer(id: "4418402", name: "Allagash White & Friends", date: "Apr 10, 2025 @ 07:45:00pm"),
                ]))
    }

    @Test(.bug(id: 6)) func emptyQueuePageIsAnEmptyQueue() throws {
        #expect(try parse("empty.html") == .queue([]))
    }

    @Test(.bug(id: 6)) func loginPageMeansSessionExpired() throws {
        #expect(try parse("login.html") == .sessionExpired)
    }

    /// Any other page is an error, never an empty queue.
    @Test(.bug(id: 6), arguments: ["maintenance.html", "truncated.html"])
    func otherPagesAreErrors(_ name: String) throws {
        let error = #expect(throws: BeerQueueError.self) { try parse(name) }
        #expect(error.map { ExitStatus(for: $0) } == .dataError)
        #expect(error.map { "\($0)" }?.contains(name) == true)
    }

    @Test(.bug(id: 6)) func truncatedPageSaysSo() throws {
        let error = #expect(throws: BeerQueueError.self) { try parse("truncated.html") }
        #expect(error.map { "\($0)" }?.contains("truncated") == true)
    }

    /// A beer without its own delete link is never paired with the next beer's id: it is skipped
    /// and counted, and the next beer keeps its own id.
    @Test(.bug(id: 6)) func rowWithoutIdIsNotPairedWithNextId() throws {
        guard case .queue(let beers, let skipped) = try parse("missing-id.html") else {
            Issue.record("expected a queue")
            return
        }
        #expect(beers == [QueuedBeer(id: "4418377", name: "Bell's Two Hearted Ale", date: "Apr 09, 2025 @ 11:02:55am")])
        #expect(skipped.map(\.row) == [1])
        #expect(skipped.first?.reason.contains("Founders KBS") == true)
    }

    /// Small pages for single rules, built inline so each rule is visible in the test.
    @Test(
        .bug(id: 6),
        arguments: [
            // Last row without an id at the end of the page.
            (
                #"<html><body><h3 class="brewName">A (Draft)<div class="brew_added_date">d</div></h3></body></html>"#,
                "no deleteQueuedBrew"
            ),
            // A delete link whose cid is not digits.
            (
                #"<html><body><h3 class="brewName">A<div class="brew_added_date">d</div></h3><a href="deleteQueuedBrew.php?cid=12a">x</a></body></html>"#,
                "numeric cid"
            ),
            // "No brew in queue" only inside a script does not make an empty page.
            (#"<html><body><script>var s = "No brew in queue";</script></body></html>"#, "not a beer-queue page"),
            // Empty name.
            (
                #"<html><body><h3 class="brewName"> <div class="brew_added_date">d</div></h3><a href="deleteQueuedBrew.php?cid=1">x</a></body></html>"#,
                "without a name"
            ),
            // The empty marker but the page cut off.
            (#"<html><body><p>No brew in queue</p>"#, "truncated"),
            // Empty input.
            ("", "not a beer-queue page"),
        ])
    func eachBrokenPageRuleHasItsOwnError(_ page: String, _ expected: String) throws {
        let error = #expect(throws: BeerQueueError.self) { try BeerQueuePage.parse(page, source: "inline") }
        #expect(error.map { "\($0)" }?.contains(expected) == true, "\(String(describing: error))")
    }

    @Test(.bug(id: 6)) func entitiesAndNestedMarkupInNamesAreDecoded() throws {
        let page = """
            <html><body>
            <h3 class="x brewName">Caf&eacute; &lt;Noir&gt; &quot;Reserve&quot; &#x1F37A; &#127866;<span> Stout</span> (16oz Can)
            <div class="brew_added_date"><b>Apr 08, 2025</b> @ 03:10:18pm</div></h3>
            <a href="deleteQueuedBrew.php?cid=7#top">x</a>
            </body></html>
            """
        #expect(
            try BeerQueuePage.parse(page, source: "inline")
                == .queue([
                    QueuedBeer(id: "7", name: "Café <Noir> \"Reserve\" 🍺 🍺 Stout", date: "Apr 08, 2025 @ 03:10:18pm")
                ]))
    }

    @Test(
        .bug(id: 6),
        arguments: [
            ("Founders KBS (2024) (CAN)", "Founders KBS (2024)"),
            ("Two Hearted (Draft)", "Two Hearted"),
            ("Two Hearted (draft)", "Two Hearted"),
            ("Two Hearted (DRAFT)", "Two Hearted"),
            ("Pliny the Elder (BTL)", "Pliny the Elder"),
            ("Pliny the Elder (Btl)", "Pliny the Elder"),
            ("Heady Topper (Can)", "Heady Topper"),
            ("Heady Topper (16oz Can)", "Heady Topper"),
            ("Heady Topper (16 oz can)", "Heady Topper"),
            ("Guinness (Nitro)", "Guinness"),
            ("Guinness (Nitro Draft)", "Guinness"),
            ("Old Ale (Cask)", "Old Ale"),
            ("Saison (750ml Bottle)", "Saison"),
            ("Saison (Bottle) (Draft)", "Saison"),
            ("Dark Lord (2019)", "Dark Lord (2019)"),
            ("Dark Lord (Barrel Aged) (CAN)", "Dark Lord (Barrel Aged)"),
            ("Dark Lord (Batch 3)", "Dark Lord (Batch 3)"),
            ("(Draft)", "(Draft)"),
            ("Can Opener IPA", "Can Opener IPA"),
            ("Draft Punk (CAN)", "Draft Punk"),
            ("  Spaced   Out   (Draft)  ", "Spaced Out"),
        ])
    func containerLabelsGetTheirDisplayNames(_ name: String, _ display: String) {
        #expect(ContainerLabel.displayName(name) == display)
    }
}
