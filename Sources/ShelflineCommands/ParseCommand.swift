import ArgumentParser
import ShelflineCore

/// `shelfline-parse`: placeholder until its issue lands.
public struct ParseCommand: StageCommand {
    public static let configuration = CommandConfiguration(
        commandName: "shelfline-parse", abstract: "The parse stage (not built yet).", discussion: helpDiscussion(""),
        version: shelflineVersion)

    @OptionGroup public var common: CommonOptions

    public init() {}

    public func execute(context: StageContext) async throws {
        throw UsageError("shelfline-parse is not built yet")
    }
}
