import ArgumentParser
import ShelflineCore

/// `shelfline-dedupe`: placeholder until its issue lands.
public struct DedupeCommand: StageCommand {
    public static let configuration = CommandConfiguration(
        commandName: "shelfline-dedupe", abstract: "The dedupe stage (not built yet).", discussion: helpDiscussion(""),
        version: shelflineVersion)

    @OptionGroup public var common: CommonOptions

    public init() {}

    public func execute(context: StageContext) async throws {
        throw UsageError("shelfline-dedupe is not built yet")
    }
}
