import ArgumentParser
import ShelflineCore

/// `shelfline-merge`: placeholder until its issue lands.
public struct MergeCommand: StageCommand {
    public static let configuration = CommandConfiguration(
        commandName: "shelfline-merge", abstract: "The merge stage (not built yet).", discussion: helpDiscussion(""),
        version: shelflineVersion)

    @OptionGroup public var common: CommonOptions

    public init() {}

    public func execute(context: StageContext) async throws {
        throw UsageError("shelfline-merge is not built yet")
    }
}
