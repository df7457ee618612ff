#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ShelflineCore

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
            let log = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
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
                    redirection: .init(stdin: readEnd, stdout: log, stderr: log))
            } catch {
                close(writeEnd)
                throw error
            }
            input = writeEnd
        } catch {
            lifecycle.log.error("shelfline: push: cannot start the push worker (\(executable) watch): \(error); "
                + "the snapshots go out after the import")
        }
    }

    /// Closes the worker's stdin: it makes one last pass (the final state, at once) and exits. A
    /// worker still running after `grace` seconds (APNs not answering: a pass waits at most 5 s
    /// for an answer) is killed: the run's `shelfline-push send` delivers what it left.
    func finish(grace: Double = 6) {
        guard let child else { return }
        if input >= 0 { close(input) }
        input = -1
        let deadline = DispatchTime.now() + grace
        var termination = child.poll()
        while termination == nil && DispatchTime.now() < deadline {
            usleep(10_000)
            termination = child.poll()
        }
        if termination == nil {
            child.send(SIGKILL)
            termination = child.wait()
        }
        if case .exited(let status) = termination, status != 0 {
            lifecycle.log.error("shelfline: push: the push worker exited \(status) (see \(lifecycle.workspace.root)/push/watch.log)")
        }
        self.child = nil
    }
}
