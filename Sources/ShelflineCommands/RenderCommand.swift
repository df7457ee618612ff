import ArgumentParser
import ShelflineCore

/// `shelfline-render`: placeholder until its issue lands.
public struct RenderCommand: StageCommand {
    public static let configuration = CommandConfiguration(
        commandName: "shelfline-render", abstract: "The render stage (not built yet).", discussion: helpDiscussion(""),
        version: shelflineVersion)

    @OptionGroup public var common: CommonOptions

    public init() {}

    public func execute(context: StageContext) async throws {
        throw UsageError("shelfline-render is not built yet")
    }
}
