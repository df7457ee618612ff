import ArgumentParser
import Foundation
import ShelflineCore
import ShelflinePush
import ShelflineStageCLI

#if canImport(Glibc)
    import Glibc
#endif

/// `shelfline-push watch`: the push worker `shelfline run` starts beside the stages.
struct WatchCommand: PushSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Push the Live Activity snapshots as they are written, over one APNs connection, until stdin closes.",
        discussion: helpDiscussion(
            """
            Started by `shelfline run` for the length of an import (its stdin is a pipe the run closes when the
            import ends; SIGTERM also ends it). Every pass (--poll-interval) gives each token the newest snapshot
            due to it: progress at apns-priority 5 at most once per apns.minimumUpdateIntervalSeconds, start,
            paused, failed and finished at priority 10 at once (at most apns.maxUrgentPushesPerImport per token),
            beer-queue snapshots at once. 429, 5xx and no answer are retried on a later pass with the newest state,
            never a backlog. Deliveries are recorded in <workspace>/push/outbox.json. SIGINT and SIGHUP are
            ignored: the run that started it decides when it ends. Exit 78 when APNs refuses the provider token.
            """))

    @OptionGroup var common: CommonOptions

    @Option(name: .long, help: "Seconds between passes over the snapshots.")
    var pollInterval: Double = 0.25

    func validate() throws {
        guard pollInterval > 0, pollInterval <= 60 else { throw ValidationError("--poll-interval must be > 0 and ≤ 60") }
    }

    func execute(context: StageContext, workspace: Workspace) async throws {
        let (sender, providerToken) = try delivery(context, workspace: workspace, requiredTo: "push")!
        let stop = WatchStop()
        // As long a wait as `send`'s: a late answer is a delivery; a start sent again, a second activity.
        let transport = try APNsTransport(settings: sender.settings)
        let state = await PushWatcher(sender: sender, pollInterval: pollInterval).run(
            transport: transport, providerToken: providerToken, stop: { stop.isSet })
        await transport.shutdown()
        if !common.quiet {
            print("push watch: \(state.delivered) delivered, \(state.failed) not (left for the next pass or send)")
        }
        if let error = state.stoppedBecause { throw error }
    }
}

/// Set when stdin reaches its end (the run closed the pipe, or died) or on SIGTERM.
final class WatchStop: @unchecked Sendable {
    private let lock = NSLock()
    private var set = false
    private var signals: GracefulShutdownSignals?

    init() {
        signal(SIGINT, SIG_IGN)
        signal(SIGHUP, SIG_IGN)
        signals = GracefulShutdownSignals([SIGTERM]) { [weak self] in self?.raise() }
        let thread = Thread { [weak self] in
            var buffer = [UInt8](repeating: 0, count: 512)
            while true {
                let count = read(0, &buffer, buffer.count)
                if count == 0 || (count < 0 && errno != EINTR) { break }
            }
            self?.raise()
        }
        thread.start()
    }

    func raise() { lock.withLock { set = true } }
    var isSet: Bool { lock.withLock { set } }
}
