import ArgumentParser
import ShelflineCore

/// `shelfline-lookup`: placeholder until its issue lands.
public struct LookupCommand: StageCommand {
    public static let configuration = CommandConfiguration(
        commandName: "shelfline-lookup", abstract: "The lookup stage (not built yet).", discussion: helpDiscussion(""),
        version: shelflineVersion)

    @OptionGroup public var common: CommonOptions

    public init() {}

    public func execute(context: StageContext) async throws {
        throw UsageError("shelfline-lookup is not built yet")
    }
}
