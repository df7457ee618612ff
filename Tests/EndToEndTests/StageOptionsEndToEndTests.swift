import Foundation
import ShelflineCommands
import ShelflineCore
import TestSupport
import TestTraits
import Testing

/// Each stage executable takes its files under the options its description derives from their
/// roles (`StageFile.optionName`), which is what the orchestrator passes: read from the built
/// executable's own argument-parser dump, not from its source.
@Suite(.offCooperativePool) struct StageOptionsEndToEndTests {
    struct Dump: Decodable {
        struct Command: Decodable { var arguments: [Argument] }
        struct Argument: Decodable {
            struct Name: Decodable, Hashable { var kind: String; var name: String }
            var names: [Name]?
            var kind: String
        }
        var command: Command
    }

    static let stagesGivenFiles = Stage.pipeline.filter { $0.invocation != .runDirectory(subcommand: "import") }

    @Test(.bug(id: 24), arguments: stagesGivenFiles.map(\.name))
    func everyFileOptionTheDescriptionDerivesIsAnOptionOfTheExecutable(_ name: StageName) throws {
        let stage = try #require(Stage.pipeline.named(name))
        let result = try ExecutableRunner.run(stage.executable, ["--experimental-dump-help"])
        #expect(result.status == 0, "\(result)")
        let dump = try JSONDecoder().decode(Dump.self, from: Data(result.stdout.utf8))
        let options = Set(dump.command.arguments.filter { $0.kind == "option" }.flatMap { $0.names ?? [] })
        let files = stage.inputs + stage.outputs + (stage.progress.map { [$0] } ?? [])
        var expected = 0
        for file in files {
            guard let option = file.optionName else { continue }
            expected += 1
            #expect(options.contains(.init(kind: "long", name: option)), "\(stage.executable) lacks --\(option) for \(file.role)")
            if file.passing == .output {
                #expect(options.contains(.init(kind: "short", name: "o")), "\(stage.executable) lacks -o")
            }
        }
        #expect(expected > 0)
        // Exactly one positional argument when the description passes a file positionally.
        let positionals = dump.command.arguments.filter { $0.kind == "positional" }.count
        #expect(positionals == stage.inputs.filter { $0.passing == .positional }.count)
    }

    @Test func optionNamesAreTheRolesInKebabCase() {
        #expect(StageFile(.failedRows, .option, defaultName: "f").optionName == "failed-rows")
        #expect(StageFile(.parseReport, .option, defaultName: "p").flag == "--parse-report")
        #expect(StageFile(.records, .output, defaultName: "r").flag == "-o")
        #expect(StageFile(.records, .output, defaultName: "r").optionName == "output")
        #expect(StageFile(.records, .positional, defaultName: "r").flag == nil)
        #expect(StageFile(.decisions, .foundByRole, defaultName: "{decisions}").optionName == nil)
    }
}
