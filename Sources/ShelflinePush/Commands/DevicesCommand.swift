import ArgumentParser
import Foundation
import ShelflineCore
import ShelflinePush
import ShelflineStageCLI

/// `shelfline-push devices`: who may call `serve`.
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "Manage the devices allowed to call `shelfline-push serve`.",
        discussion: helpDiscussion(
            """
            <workspace>/push/devices.json (mode 0600) holds each device's name and the SHA-256 of its secret;
            the secret is printed once by `add` and stored nowhere.
            """),
        subcommands: [DevicesAddCommand.self, DevicesListCommand.self, DevicesRemoveCommand.self])
}

/// `devices add NAME`.
struct DevicesAddCommand: PushSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a device and print its new secret (once: it is stored hashed).",
        discussion: helpDiscussion("The name: 1 to 64 of A-Z a-z 0-9 . _ - (else 64); an existing name exits 64."))

    @OptionGroup var common: CommonOptions

    @Argument(help: "The device's name, e.g. alice-iphone.")
    var name: String

    func execute(context: StageContext, workspace: Workspace) async throws {
        let secret = try await PushStore(workspace: workspace).addDevice(name, now: context.now())
        // The secret alone on stdout (for scripts); the note on stderr.
        print(secret)
        if !common.quiet {
            FileHandle.standardError.write(
                Data("shelfline-push: device '\(name)' added; its secret above is shown only now\n".utf8))
        }
    }
}

/// `devices list`.
struct DevicesListCommand: PushSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the devices (names and when added).")

    @OptionGroup var common: CommonOptions

    func execute(context: StageContext, workspace: Workspace) async throws {
        let devices = try PushStore(workspace: workspace).readDevices().devices
        print(
            devices.isEmpty
                ? "no devices" : devices.map { "\($0.name) added=\(PushStore.iso($0.addedAt))" }.joined(separator: "\n"))
    }
}

/// `devices remove NAME`.
struct DevicesRemoveCommand: PushSubcommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove a device: its secret stops working at once; the tokens it registered stay (see `unregister`).",
        discussion: helpDiscussion("An unknown name exits 64."))

    @OptionGroup var common: CommonOptions

    @Argument(help: "The device's name.")
    var name: String

    func execute(context: StageContext, workspace: Workspace) async throws {
        try await PushStore(workspace: workspace).removeDevice(name)
        if !common.quiet { print("removed: \(name)") }
    }
}
