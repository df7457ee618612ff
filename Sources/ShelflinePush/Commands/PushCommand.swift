import ArgumentParser
import Foundation
import ShelflineActivity
import ShelflineCore
import ShelflinePush
import ShelflineStageCLI

/// `shelfline-push`: delivers the Live Activity snapshots render emitted through APNs.
public struct PushCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "shelfline-push",
        abstract: "Send the Live Activity snapshots render emitted to the registered tokens through APNs (HTTP/2, token auth).",
        discussion: helpDiscussion(
            """
            Subcommands:
              send        push every snapshot not yet delivered to every token that fits its event
              watch       push the newest state as snapshots are written, until stdin closes (shelfline run's worker)
              register    add an update or push-to-start token for the import or beer-queue activity
              unregister  remove a token
              list        the registered tokens and their delivery state
              serve       the app's HTTP API (tokens in, snapshots out), per-device secrets
              devices     add, list, remove the devices allowed to call serve
            Reads <workspace>/activity/*.history.ndjson and pipeline.json's `apns` section (keyFile mode 0600).
            Writes <workspace>/push/registry.json, outbox.json (a cursor per token) and push-report.json,
            each atomically; one logfmt line per APNs answer on stderr. See docs/push.md.
            """),
        version: shelflineVersion,
        subcommands: [
            SendCommand.self, WatchCommand.self, RegisterCommand.self, UnregisterCommand.self, ListCommand.self,
            ServeCommand.self, DevicesCommand.self,
        ])

    public init() {}
}

/// Every subcommand: config and context, then one-line errors with their documented status.
protocol PushSubcommand: AsyncParsableCommand {
    var common: CommonOptions { get }
    func execute(context: StageContext, workspace: Workspace) async throws
}

extension PushSubcommand {
    public func run() async throws {
        try await reportingErrors(as: "shelfline-push") {
            let context = try common.context()
            try await execute(context: context, workspace: context.workspace)
        }
    }

    /// What `send` and `watch` deliver with; without an `apns` section, a config error naming `verb`
    /// (nil: returns nil). The provider token is shared through the push directory with every sender.
    func delivery(_ context: StageContext, workspace: Workspace, requiredTo verb: String?) throws -> (PushSender, ProviderToken)?
    {
        guard let apns = try APNsConfig.decode(context.config.apns, configPath: context.configPath) else {
            guard let verb else { return nil }
            throw ConfigError(
                path: context.configPath, key: "apns",
                expected: "required to \(verb): keyFile, keyId, teamId, bundleId (docs/push.md)")
        }
        let settings = try PushSettings(apns, configPath: context.configPath)
        let key = try settings.loadSigningKey()
        let sender = PushSender(workspace: workspace, settings: settings, clock: PushClock(now: context.now), log: context.log)
        return (
            sender,
            ProviderToken(
                key: key, keyId: settings.keyId, teamId: settings.teamId, now: context.now,
                storePath: sender.store.providerTokenPath)
        )
    }
}
