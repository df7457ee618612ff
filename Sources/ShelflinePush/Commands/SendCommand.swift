import ArgumentParser
import Foundation
import ShelflineCore
import ShelflinePush
import ShelflineStageCLI

/// `shelfline-push send`: one delivery pass.
struct SendCommand: PushSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Push every snapshot not yet delivered to every registered token that fits its event.",
        discussion: helpDiscussion(
            """
            Update tokens get `update` and `end`, push-to-start tokens get `start`; a new token gets the latest
            snapshot only. A delivery (200) is recorded in <workspace>/push/outbox.json before that token's next
            push, so a crash re-sends at most the push that was in flight. 400 BadDeviceToken/DeviceTokenNotForTopic
            and 410 drop the token; 403 is retried once with a new provider token, then exits 78; 429/5xx are
            retried with backoff within apns.waitBudgetSeconds, then left for the next run (75); no network: 75,
            nothing marked sent; 413 and other 400s are logged as bugs, never retried (65 at the end).
            """))

    @OptionGroup var common: CommonOptions

    @Flag(name: .long, help: "Print the requests (headers and body, tokens shortened) instead of sending; record nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Without an `apns` section, say so (unless --quiet) and exit 0 instead of 78 (for make beer-queue).")
    var ifConfigured = false

    func execute(context: StageContext, workspace: Workspace) async throws {
        guard
            case let (sender, providerToken)? = try delivery(
                context, workspace: workspace, requiredTo: ifConfigured ? nil : "send")
        else {
            if !common.quiet { print("shelfline-push: no apns section in \(context.configPath); Live Activity pushes skipped") }
            return
        }
        if dryRun {
            let (text, report) = try await sender.store.withLock { try sender.dryRun() }
            print(text, terminator: "")
            if !common.quiet { print(report.summary.replacingOccurrences(of: "push:", with: "push (dry run):")) }
            return
        }
        let transport = try APNsTransport(settings: sender.settings)
        do {
            let report = try await sender.store.withSendLock {
                try await sender.send(transport: transport, providerToken: providerToken)
            }
            await transport.shutdown()
            if !common.quiet { print(report.summary) }
        } catch {
            await transport.shutdown()
            if !common.quiet, (error as? PushError)?.thrownAfterReport == true,
                let report = try? readJSONFile(PushReport.self, from: sender.store.reportPath)
            {
                print(report.summary)
            }
            throw error
        }
    }
}
