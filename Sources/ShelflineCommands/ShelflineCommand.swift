import ArgumentParser
import ShelflineCore

/// `shelfline`: the orchestrator's root command.
public struct ShelflineCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "shelfline", abstract: "Import reading-library exports into a local library.",
        discussion: helpDiscussion(""), version: shelflineVersion, subcommands: [])

    public init() {}
}
