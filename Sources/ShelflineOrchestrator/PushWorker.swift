import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// `shelfline-push watch` beside one import's stages: started at the first tick (a no-op rerun
/// starts none), stopped by closing its stdin. A process of its own, so a down or slow APNs never
/// slows or fails the import; it logs to `<workspace>/push/watch.log`, never between the run's lines.
final class PushWorker {
    private let runner: PipelineRunner
    private var child: ChildProcess?
    /// The write end of the worker's stdin.
    private var input: Int32 = -1
    private var started = false

    init(runner: PipelineRunner) {
        self.runner = runner
    }

    deinit {
        if input >= 0 { close(input) }
    }

    /// Starts the worker on the first call; one that cannot start is logged once.
    func startOnce() {
        guard !started else { return }
        started = true
        let directory = runner.workspace.root + "/push"
        let logPath = directory + "/watch.log"
        let executable = runner.binDirectory + "/shelfline-push"
        do {
            try Workspace.makeDirectory(directory)
            let log = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
            guard log >= 0 else { throw FileError.cannotCreate(path: logPath, reason: systemErrorMessage()) }
            defer { close(log) }
            // Both ends close-on-exec: a stage inheriting the write end would keep it open.
            guard let (readEnd, writeEnd) = ChildProcess.pipe(nonBlockingRead: false) else {
                throw FileError.cannotCreate(path: "pipe", reason: systemErrorMessage())
            }
            defer { close(readEnd) }
            do {
                child = try ChildProcess.spawn(
                    executable: executable,
                    arguments: ["watch", "--workspace", runner.workspace.root, "--config", runner.configPath, "--quiet"],
                    directory: nil, environment: ProcessInfo.processInfo.environment,
                    redirection: .init(stdin: readEnd, stdout: log, stderr: log, closeInChild: Self.inheritable()))
            } catch {
                close(writeEnd)
                throw error
            }
            input = writeEnd
        } catch {
            runner.log.error(
                "shelfline: push: cannot start the push worker (\(executable) watch): \(error); "
                    + "the snapshots go out after the import")
        }
    }

    /// The descriptors above 2 a child would inherit. The worker may outlive the run: holding one
    /// the run got from its parent (a pipe, a harness's socket) would make that parent wait for it.
    static func inheritable() -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { Int32($0) }.filter { fd in
            guard fd > 2 else { return false }
            let flags = fcntl(fd, F_GETFD)
            return flags >= 0 && flags & FD_CLOEXEC == 0
        }
    }

    /// The longest the import's exit waits for the pushes, so a slow APNs never slows `shelfline run` more.
    static let exitWaitSeconds = 2.0

    /// Closes the worker's stdin: it makes one last pass and exits. A worker still waiting for APNs
    /// after `exitWaitSeconds` finishes on its own (the outbox keeps what it cannot deliver).
    /// Returns the seconds left for the run's own `send`, nil while the worker is still at it.
    func finish() -> Double? {
        let grace = Self.exitWaitSeconds
        guard let child else { return grace }
        self.child = nil
        let died = child.poll()
        if input >= 0 { close(input) }
        input = -1
        if case .signaled(let signal) = died {
            let note =
                "shelfline: push: the push worker (shelfline-push watch) was killed by signal \(signal) during the import; "
                + "the pushes it had not made go out with shelfline-push send now"
            runner.log.error(note)
            appendToLog(note)
            return grace
        }
        let start = DispatchTime.now()
        guard let termination = died ?? child.wait(until: start + grace) else { return nil }
        if case .exited(let status) = termination, status != 0 {
            runner.log.error(
                "shelfline: push: the push worker exited \(status) (see \(runner.workspace.root)/push/watch.log)")
        }
        return max(0.5, grace - Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9)
    }

    /// One line at the end of `push/watch.log` (the worker appends to it too).
    private func appendToLog(_ line: String) {
        let path = runner.workspace.root + "/push/watch.log"
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}

extension ChildProcess {
    /// Nil if the child is still running at `deadline`.
    func wait(until deadline: DispatchTime) -> Termination? {
        var termination = poll()
        while termination == nil && DispatchTime.now() < deadline {
            usleep(10_000)
            termination = poll()
        }
        return termination
    }
}
