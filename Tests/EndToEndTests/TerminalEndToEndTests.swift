import Foundation
import ShelflineCore
import TestSupport
import TestTraits
import Testing

/// Issue 13.2: what `shelfline run` leaves on a terminal, run through a pseudo-terminal
/// (util-linux `script`) and read back as the screen shows it.
@Suite(.serialized, .offCooperativePool) struct TerminalEndToEndTests {
    static let example = ExecutableRunner.repositoryRoot + "/examples/goodreads_library_export.csv"
    static let shippedConfig = ExecutableRunner.repositoryRoot + "/examples/pipeline.json"

    /// Runs `shelfline arguments` on a pseudo-terminal; returns the exit status and the raw bytes written to it.
    func runOnTerminal(_ arguments: [String], in dir: TemporaryDirectory) throws -> (status: Int32, output: String) {
        let process = ExecutableRunner.start("shelfline", arguments, in: dir.path)
        let command = ([process.executableURL!.path] + arguments).map {
            "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["--quiet", "--return", "--command", command.joined(separator: " "), "/dev/null"]
        let transcript = dir.file("terminal.out")
        FileManager.default.createFile(atPath: transcript, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: transcript))
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, try String(contentsOfFile: transcript, encoding: .utf8))
    }

    /// The screen's final text: carriage returns overwrite, `ESC[2K`/`ESC[K` clear, other escape
    /// sequences draw nothing.
    static func screen(_ output: String) -> [String] {
        var lines: [[Character]] = [[]]
        var column = 0
        // Scalars, not Characters: "\r\n" (a pty's line end) is one Character.
        var characters = output.unicodeScalars.map(Character.init)[...]
        while let character = characters.popFirst() {
            switch character {
            case "\r": column = 0
            case "\n": lines.append([]); column = 0
            case "\u{1B}":
                guard characters.first == "[" else { continue }
                characters.removeFirst()
                var parameter = ""
                while let next = characters.popFirst() {
                    if next.isLetter {
                        if next == "K" {
                            if parameter == "2" {
                                lines[lines.count - 1] = []
                            } else {
                                lines[lines.count - 1] = Array(lines[lines.count - 1].prefix(column))
                            }
                        }
                        break
                    }
                    parameter.append(next)
                }
            default:
                var line = lines[lines.count - 1]
                while line.count < column { line.append(" ") }
                if column < line.count { line[column] = character } else { line.append(character) }
                lines[lines.count - 1] = line
                column += 1
            }
        }
        return lines.map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    @Test(.bug(id: 13)) func terminalShowsOneResultLinePerStageAndNoLogfmt() throws {
        let dir = TemporaryDirectory("terminal")
        let workspace = dir.file("ws")
        let run = try runOnTerminal(
            ["run", "--csv", Self.example, "--config", Self.shippedConfig, "--workspace", workspace], in: dir)
        let screen = Self.screen(run.output)
        #expect(run.status == 0, "\(screen)")
        for stage in StageName.allCases {
            let results = screen.filter { $0.hasPrefix("\(stage.rawValue): done (") }
            #expect(results.count == 1, "\(stage): \(screen)")
        }
        #expect(!screen.contains { $0.contains("stage=") || $0.contains("event=") }, "logfmt on a terminal: \(screen)")
        #expect(!screen.contains { $0.contains("running") || $0.contains("[#") }, "a live line was left: \(screen)")
        let summary = try #require(screen.firstIndex { $0.contains("15 rows read") }, "\(screen)")
        #expect(screen[summary...].contains { $0.hasPrefix("report: ") && $0.hasSuffix("report.html") }, "\(screen)")
        #expect(screen.last?.hasPrefix("report: ") == true, "what to do next comes last: \(screen)")
    }

    @Test(.bug(id: 13)) func logfmtOnATerminalWhenAskedForAndNeverABar() throws {
        let dir = TemporaryDirectory("terminal-logfmt")
        let run = try runOnTerminal(
            [
                "run", "--csv", Self.example, "--config", Self.shippedConfig, "--workspace", dir.file("ws"),
                "--log-format", "logfmt",
            ], in: dir)
        let screen = Self.screen(run.output)
        #expect(run.status == 0, "\(screen)")
        for stage in StageName.allCases {
            #expect(screen.contains { $0.hasPrefix("stage=\(stage.rawValue) event=done") }, "\(stage): \(screen)")
        }
        #expect(!screen.contains { $0.contains(": done (") || $0.contains("[#") }, "\(screen)")
        #expect(!run.output.contains("\u{1B}[2K"), "a live line was drawn: \(run.output)")
    }
}
