import Foundation
import ShelflineCore
import ShelflineReports

#if canImport(Glibc)
    import Glibc
#endif

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
}

/// Runs the configured `notify` command with the event on stdin, never letting it change the
/// import's outcome or wedge the workspace: its process group is killed after `timeoutSeconds` or
/// at once on a stop signal; its output goes to `<workspace>/notify.log` (bounded, rotated), never
/// to the run's; a failure is one stderr line even with `--quiet` (cron mails it). Run after the
/// workspace lock is released (its descriptor is close-on-exec).
public struct Notifier: Sendable {
    public var command: [String]
    public var timeoutSeconds = Notifier.defaultTimeoutSeconds
    public var workspace: Workspace
    public var log: Logfmt
    public var now: @Sendable () -> Date = { Date() }
    public var cancellation = CancellationFlag()

    public var logPath: String { workspace.root + "/notify.log" }

    /// Bytes of one call's output kept in the log; the rest is counted and dropped.
    public static let outputLimit = 64 * 1024
    /// Beyond this the log is rotated to `notify.log.1`.
    public static let logLimit = 1024 * 1024
    public static let defaultTimeoutSeconds = 30.0
    /// Once the run was asked to stop, notify gets at most this long (a pause stays quick).
    static let stoppingTimeoutSeconds = 5.0

    public enum Outcome: Sendable, Equatable {
        case succeeded
        case failed(String)
        case timedOut
        case interrupted
    }

    @discardableResult
    public func send(_ event: ImportEvent) -> Outcome {
        guard let executable = command.first else { return .succeeded }
        let outcome = deliver(event, executable: executable)
        switch outcome {
        case .succeeded: break
        case .failed(let reason): log.error("shelfline: notify: \(reason) (output in \(logPath))")
        case .timedOut:
            log.error(
                "shelfline: notify: killed after \(JSONValue.number(timeoutSeconds).text) s (notifyTimeoutSeconds); output in \(logPath)"
            )
        case .interrupted: log.error("shelfline: notify: stopped by a signal (output in \(logPath))")
        }
        return outcome
    }

    private func deliver(_ event: ImportEvent, executable: String) -> Outcome {
        var body = (try? JSONEncoder.shelfline.encode(event)) ?? Data()
        body.append(UInt8(ascii: "\n"))
        // Stdin is an unlinked file, not a pipe: a command that never reads cannot block us.
        let directory = (logPath as NSString).deletingLastPathComponent
        var template = Array((directory + "/.notify-event-XXXXXX").utf8CString)
        let input = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard input >= 0 else { return .failed("cannot create its input in \(directory): \(systemErrorMessage())") }
        _ = fcntl(input, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        defer { close(input) }
        let written = body.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
        guard written == body.count, lseek(input, 0, SEEK_SET) == 0 else {
            return .failed("cannot write its input: \(systemErrorMessage())")
        }
        let logFile = openLog(event)
        defer { if logFile >= 0 { close(logFile) } }

        guard let (readEnd, writeEnd) = ChildProcess.pipe() else { return .failed("pipe: \(systemErrorMessage())") }
        defer { close(readEnd) }
        let child: ChildProcess
        do {
            defer { close(writeEnd) }
            child = try ChildProcess.spawn(
                executable: executable, arguments: Array(command.dropFirst()), directory: directory,
                environment: ProcessInfo.processInfo.environment,
                redirection: .init(stdin: input, stdout: writeEnd, stderr: writeEnd), ownProcessGroup: true,
                searchPath: !executable.contains("/"))
        } catch {
            return .failed("cannot run \(executable): \(error)")
        }

        let started = now()
        let limit = cancellation.isCancelled ? min(timeoutSeconds, Self.stoppingTimeoutSeconds) : timeoutSeconds
        let wasCancelled = cancellation.isCancelled
        var kept = 0, dropped = 0
        var open = true
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        func drain() {
            while open {
                let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                if count == 0 { open = false; return }
                if count < 0 { if errno == EINTR { continue }; return }
                let keep = max(0, min(count, Self.outputLimit - kept))
                if keep > 0, logFile >= 0 { _ = buffer.withUnsafeBytes { write(logFile, $0.baseAddress, keep) } }
                kept += keep
                dropped += count - keep
            }
        }
        var outcome: Outcome?
        var termination: ChildProcess.Termination?
        while termination == nil {
            StageOutputRelay.wait(milliseconds: 100, forAnyOf: [open ? readEnd : -1])
            drain()
            termination = child.poll()
            if termination != nil { break }
            if !wasCancelled && cancellation.isCancelled {
                outcome = .interrupted
            } else if now().timeIntervalSince(started) >= limit {
                outcome = .timedOut
            }
            if outcome != nil {
                child.sendToGroup(SIGKILL)
                termination = child.wait()
            }
        }
        drain()
        // Whatever it left in its group must not outlive it holding our pipe.
        child.sendToGroup(SIGKILL)
        let ending: String
        switch (outcome, termination!) {
        case (.some(.timedOut), _): ending = "killed after \(JSONValue.number(limit).text) s timeout"
        case (.some(let other), _): ending = "\(other)"
        case (nil, .exited(0)): ending = "exit 0"
        case (nil, .exited(let status)):
            ending = "exit \(status)"; outcome = .failed("\(executable) exited with status \(status)")
        case (nil, .signaled(let signal)):
            ending = "killed by signal \(signal)"; outcome = .failed("\(executable) was killed by signal \(signal)")
        }
        if logFile >= 0 {
            let note = (dropped > 0 ? "[\(dropped) more bytes of output dropped]\n" : "") + "--- \(ending)\n"
            _ = note.withCString { write(logFile, $0, strlen($0)) }
        }
        return outcome ?? .succeeded
    }

    /// The log, rotated when too large, opened for appending with a header for this call.
    private func openLog(_ event: ImportEvent) -> Int32 {
        var info = stat()
        if stat(logPath, &info) == 0, Int(info.st_size) > Self.logLimit {
            rename(logPath, logPath + ".1")
        }
        let fd = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return -1 }
        let header =
            "--- \(ISO8601DateFormatter().string(from: now())) event=\(event.event) run=\(event.runId ?? "-") "
            + "command=\(command.joined(separator: " "))\n"
        _ = header.withCString { write(fd, $0, strlen($0)) }
        return fd
    }
}
