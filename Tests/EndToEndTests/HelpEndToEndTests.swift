import Foundation
import ShelflineCommands
import ShelflineCore
import TestSupport
import TestTraits
import Testing

/// Every executable documents itself: `--help` names the exit statuses, `--version` answers.
@Suite(.offCooperativePool) struct HelpEndToEndTests {
    static let executables = ["shelfline"] + Stage.pipeline.map(\.executable)

    @Test(.bug(id: 2), arguments: executables)
    func helpListsExitStatusesAndVersionAnswers(executable: String) throws {
        let help = try ExecutableRunner.run(executable, ["--help"])
        #expect(help.status == 0, "\(help)")
        for status in ExitStatus.allCases {
            #expect(help.stdout.contains("\(status.rawValue)  \(status.meaning)"), "\(executable) --help lacks \(status)")
        }
        let version = try ExecutableRunner.run(executable, ["--version"])
        #expect(version.status == 0, "\(version)")
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0.1.0")
    }

    @Test(.bug(id: 2), arguments: executables)
    func unknownOptionIsUsageError(executable: String) throws {
        let result = try ExecutableRunner.run(executable, ["--no-such-option"])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("Error:"), "\(result)")
    }
}
