import Foundation
import ShelflineCore
import TestSupport
import Testing

/// One count of rows still to review, after the decisions, feeds every place that shows it: the
/// run summary's `next:` line, the import Live Activity, `report.html` and notify's event — on
/// the rerun that follows a decision and on later imports of the same books.
@Suite(.serialized, .bug(id: 23)) struct ReviewCountEndToEndTests {
    typealias Cron = CronEndToEndTests.Cron

    /// An import whose `Kindred` row (no ISBN, no author) needs review, plus `others` rows of the example.
    static func export(_ cron: Cron, _ name: String, others: [Int]) throws -> String {
        let lines = try String(contentsOfFile: CronEndToEndTests.example, encoding: .utf8).split(separator: "\n")
        let kindred = "900,Kindred,,,,=\"\",=\"\",4,4.0,,,,,,,2024/01/01,,,read,,,,1,0"
        return cron.dir.write(name, ([lines[0], Substring(kindred)] + others.map { lines[$0] }).joined(separator: "\n") + "\n")
    }

    /// Everything that shows the count, after the latest run.
    struct Shown {
        var summary: String
        var currentStep: String
        var page: String
        var event: String
    }

    static func shown(_ cron: Cron, _ result: ProcessResult, events: String) throws -> Shown {
        let state = try #require(try cron.activity["contentState"] as? [String: Any])
        let page = try String(contentsOfFile: cron.workspace + "/runs/latest/report.html", encoding: .utf8)
        let lines = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n")
        let last = try #require(try JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as? [String: Any])
        return Shown(
            summary: result.stdout, currentStep: state["currentStep"] as? String ?? "", page: page,
            event: last["event"] as? String ?? "")
    }

    @Test func aReviewDecisionClearsTheCountEverywhereAndOnLaterImports() throws {
        let eventsDir = TemporaryDirectory("review-events")
        let events = eventsDir.file("events.ndjson")
        let cron = try Cron(extra: ["notify": ["/bin/sh", "-c", "cat >> '\(events)'; echo >> '\(events)'"]])
        let first = try Self.export(cron, "first.csv", others: [1])
        var result = try cron.shelfline(["run", "--csv", first])
        #expect(result.status == 0, "\(result)")
        var shown = try Self.shown(cron, result, events: events)
        #expect(shown.summary.contains("next: 1 row(s) need review"), "\(result)")
        #expect(shown.currentStep == "Import complete · 1 to review")
        #expect(shown.page.contains("Needs review (1)") && shown.page.contains("Needs review: 1"))
        #expect(shown.event == "needsReview")

        let list = try cron.shelfline(["review", "list"])
        let row = try #require(list.stdout.firstMatch(of: /row (\d+): Kindred/).map { String($0.1) }, "\(list)")
        let reject = try cron.shelfline(["review", "reject", row])
        #expect(reject.status == 0, "\(reject)")

        // The rerun (merge and render only) and a later import of the same book: nothing left to review.
        result = try cron.shelfline(["run", "--csv", first])
        #expect(result.status == 0, "\(result)")
        for (name, run) in [
            ("rerun", result),
            ("later import", try cron.shelfline(["run", "--csv", try Self.export(cron, "later.csv", others: [2])])),
        ] {
            #expect(run.status == 0, "\(name): \(run)")
            shown = try Self.shown(cron, run, events: events)
            #expect(!shown.summary.contains("need review:"), "\(name): \(run)")
            #expect(shown.summary.contains("1 reviewed, 0 need review"), "\(name): \(run)")
            #expect(shown.currentStep == "Import complete", "\(name)")
            #expect(
                shown.page.contains("Needs review (0)") && shown.page.contains("Needs review: 0")
                    && shown.page.contains("Reviewed: 1"), "\(name)")
            #expect(shown.event == "finished", "\(name)")
        }
        let review = try cron.shelfline(["review", "list"])
        #expect(review.stdout.contains("No rows need review"), "\(review)")
    }
}
