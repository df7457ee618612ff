import Foundation
import ShelflineCore

/// An import event for the optional `notify` command (JSON on its stdin).
public struct ImportEvent: Codable, Sendable, Equatable {
    /// `finished`, `failed`, `paused` or `needsReview`.
    public var event: String
    public var runId: String?
    public var input: String?
    public var workspace: String
    public var message: String
    public var exitStatus: Int32
    public var report: MergeReport?

    public init(event: String, runId: String?, input: String?, workspace: String, message: String, exitStatus: Int32,
                report: MergeReport?) {
        self.event = event
        self.runId = runId
        self.input = input
        self.workspace = workspace
        self.message = message
        self.exitStatus = exitStatus
        self.report = report
    }
}

/// Runs the configured `notify` command with the event on stdin. A failing notifier is logged,
/// never allowed to change the import's own outcome.
public struct Notifier: Sendable {
    public var command: [String]
    public var log: Logfmt

    public init(command: [String], log: Logfmt) {
        self.command = command
        self.log = log
    }

    public func send(_ event: ImportEvent) {
        guard let executable = command.first else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
        process.arguments = executable.hasPrefix("/") ? Array(command.dropFirst()) : command
        let input = Pipe()
        process.standardInput = input
        do {
            try process.run()
            var data = (try? JSONEncoder.shelfline.encode(event)) ?? Data()
            data.append(UInt8(ascii: "\n"))
            input.fileHandleForWriting.write(data)
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
            if process.terminationStatus != 0 {
                log.error("notify: command exited with status \(process.terminationStatus)")
            }
        } catch {
            log.error("notify: cannot run \(executable): \(error)")
        }
    }
}
