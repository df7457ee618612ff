import ArgumentParser
import Foundation
import ShelflineCore
import ShelflinePush
import ShelflineStageCLI

extension PushActivity: ExpressibleByArgument {}
extension TokenKind: ExpressibleByArgument {}

/// `shelfline-push register`: adds (or changes) a token.
struct RegisterCommand: PushSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Register a Live Activity push token (the app's pushTokenUpdates or pushToStartTokenUpdates).",
        discussion: helpDiscussion(
            """
            Writes <workspace>/push/registry.json atomically. A token not hex, or not 64 to 510 hex digits, exits 64.
            Registering a known token again with another activity or kind replaces it and restarts its delivery
            at the latest snapshot.
            """))

    @OptionGroup var common: CommonOptions

    @Option(name: .long, help: "import or beer-queue.")
    var activity: PushActivity

    @Option(name: .long, help: "The token, hex.")
    var token: String

    @Option(name: .long, help: "update (receives update and end) or start (push-to-start: receives start).")
    var kind: TokenKind = .update

    func execute(context: StageContext, workspace: Workspace) async throws {
        let token = try DeviceToken(token)
        let store = PushStore(workspace: workspace)
        let changed = try await store.register(token, activity: activity, kind: kind, now: context.now())
        if !common.quiet {
            print("\(changed ? "registered" : "already registered"): \(token.shortened) \(activity.rawValue) \(kind.rawValue)")
        }
    }
}

/// `shelfline-push unregister`: removes a token.
struct UnregisterCommand: PushSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "unregister",
        abstract: "Remove a registered token (and its delivery cursor).",
        discussion: helpDiscussion("Removing a token that is not registered is not an error."))

    @OptionGroup var common: CommonOptions

    @Option(name: .long, help: "The token, hex.")
    var token: String

    func execute(context: StageContext, workspace: Workspace) async throws {
        let token = try DeviceToken(token)
        let removed = try await PushStore(workspace: workspace).unregister(token)
        if !common.quiet { print("\(removed ? "unregistered" : "not registered"): \(token.shortened)") }
    }
}

/// `shelfline-push list`: tokens and delivery state.
struct ListCommand: PushSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the registered tokens and their delivery state.",
        discussion: helpDiscussion("One line per token: token, activity, kind, registered, last delivery, snapshots pending."))

    @OptionGroup var common: CommonOptions

    func execute(context: StageContext, workspace: Workspace) async throws {
        let lines = try await PushStore(workspace: workspace).listTokens(workspace: workspace)
        print(lines.isEmpty ? "no tokens registered" : lines.joined(separator: "\n"))
    }
}
