import Foundation
import ShelflineCore

#if canImport(Glibc)
    import Glibc
#endif

/// `shelfline-push watch` beside the stages of one import: started at the first progress tick
/// (a rerun with nothing to do starts none), stopped by closing its stdin once the activity's last
/// state is written. It is a process of its own, so APNs being down, slow or refusing never slows
/// or fails the import; its log goes to `<workspace>/push/watch.log`, never between the run's lines.
/// Started through `ChildProcess`, like the stages: a clean signal mask and default dispositions.
final class PushWorker {
    private let lifecycle: ImportLifecycle
    private var child: ChildProcess?
    /// The write end of the worker's stdin.
    private var input: Int32 = -1
    private var started = false

    init(lifecycle: ImportLifecycle) {
        self.lifecycle = lifecycle
    }

    deinit {
        if input >= 0 { close(input) }
    }

    /// Starts the worker the first time it is called; a worker that cannot start is logged once.
    func startOnce() {
        guard !started else { return }
        started = true
        let directory = lifecycle.workspace.root + "/push"
        let logPath = directory + "/watch.log"
        let executable = lifecycle.binDirectory + "/shelfline-push"
        do {
            try Workspace.makeDirectory(directory)
            let log = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o644)
            guard log >= 0 else { throw FileError.cannotCreate(path: logPath, reason: systemErrorMessage()) }
            defer { close(log) }
            // Only the worker may hold the pipe (both ends close-on-exec): a stage inheriting its
            // write end would keep it open. The worker blocks reading its end.
            guard let (readEnd, writeEnd) = ChildProcess.pipe(nonBlockingRead: false) else {
                throw FileError.cannotCreate(path: "pipe", reason: systemErrorMessage())
            }
            defer { close(readEnd) }
            do {
                child = try ChildProcess.spawn(
                    executable: executable,
                    arguments: ["watch", "--workspace", lifecycle.workspace.root, "--config", lifecycle.configPath, "--quiet"],
                    directory: nil, environment: ProcessInfo.processInfo.environment,
                    redirection: .init(stdin: readEnd, stdout: log, stderr: log, closeInChild: Self.inheritable()))
            } catch {
                close(writeEnd)
                throw error
            }
            input = writeEnd
        } catch {
            lifecycle.log.error(
                "shelfline: push: cannot start the push worker (\(executable) watch): \(error); "
                    + "the snapshots go out after the import")
        }
    }

    /// The descriptors above 2 a child would inherit (not close-on-exec). The worker may outlive
    /// the run: holding one the run got from its own parent (a pipe, a test harness's socket that
    /// says the run has ended) would make that parent wait for the worker too.
    static func inheritable() -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap { Int32($0) }.filter { fd in
            guard fd > 2 else { return false }
            let flags = fcntl(fd, F_GETFD)
            return flags >= 0 && flags & FD_CLOEXEC == 0
        }
    }

    /// The longest the import's exit waits for the pushes once its last state is written (so a
    /// slow or absent APNs never slows `shelfline run` by more than this).
    static let exitWaitSeconds = 2.0

    /// Closes the worker's stdin: it makes one last pass (the final state, at once) and exits.
    /// The run waits for it `exitWaitSeconds` at most; a worker still waiting for APNs then is left
    /// to finish on its own (its answers, even late, are recorded; what it cannot deliver stays in
    /// the outbox for the next `shelfline-push send`). A worker killed mid-import is said once, here
    /// and in its log. Returns the seconds left for the run's own `send` of what is still due, nil
    /// when the worker is still at it (a `send` now would only wait for it).
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
            lifecycle.log.error(note)
            appendToLog(note)
            return grace
        }
        let start = DispatchTime.now()
        guard let termination = died ?? child.wait(until: start + grace) else { return nil }
        if case .exited(let status) = termination, status != 0 {
            lifecycle.log.error(
                "shelfline: push: the push worker exited \(status) (see \(lifecycle.workspace.root)/push/watch.log)")
        }
        return max(0.5, grace - Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9)
    }

    /// One line at the end of `push/watch.log` (the worker writes it too, appending).
    private func appendToLog(_ line: String) {
        let path = lifecycle.workspace.root + "/push/watch.log"
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array((line + "\n").utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}

extension ChildProcess {
    /// The termination if the child ends before `deadline`; nil if it is still running then.
    func wait(until deadline: DispatchTime) -> Termination? {
        var termination = poll()
        while termination == nil && DispatchTime.now() < deadline {
            usleep(10_000)
            termination = poll()
        }
        return termination
    }
}
