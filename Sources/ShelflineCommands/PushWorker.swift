#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ShelflineCore

/// `shelfline-push watch` beside the stages of one import: started at the first progress tick
/// (a rerun with nothing to do starts none), stopped by closing its stdin once the activity's last
/// state is written. It is a process of its own, so APNs being down, slow or refusing never slows
/// or fails the import; its log goes to `<workspace>/push/watch.log`, never between the run's lines.
final class PushWorker {
    private let setup: OrchestratorSetup
    private let context: StageContext
    private var process: Process?
    private var input: Pipe?
    private var started = false

    /// Nil without an `apns` section.
    init?(setup: OrchestratorSetup, context: StageContext) {
        guard setup.config.apns != nil else { return nil }
        self.setup = setup
        self.context = context
    }

    /// Starts the worker the first time it is called; a worker that cannot start is logged once.
    func startOnce() {
        guard !started else { return }
        started = true
        let directory = setup.workspace.root + "/push"
        let logPath = directory + "/watch.log"
        do {
            try Workspace.makeDirectory(directory)
            guard FileManager.default.createFile(atPath: logPath, contents: nil), let log = FileHandle(forWritingAtPath: logPath) else {
                throw FileError.cannotCreate(path: logPath, reason: systemErrorMessage())
            }
            let pipe = Pipe()
            // Only the worker may hold the pipe: a stage inheriting its write end would keep it open.
            _ = fcntl(pipe.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(pipe.fileHandleForReading.fileDescriptor, F_SETFD, FD_CLOEXEC)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: setup.binDirectory + "/shelfline-push")
            process.arguments = ["watch", "--workspace", setup.workspace.root, "--config", setup.configPath, "--quiet"]
            process.standardInput = pipe
            process.standardOutput = log
            process.standardError = log
            try process.run()
            try? log.close()
            self.process = process
            input = pipe
        } catch {
            context.log.error("shelfline: push: cannot start the push worker (\(setup.binDirectory)/shelfline-push watch): \(error); "
                + "the snapshots go out after the import")
        }
    }

    /// Closes the worker's stdin: it makes one last pass (the final state, at once) and exits. A
    /// worker still running after `grace` seconds (APNs not answering: a pass waits at most 5 s
    /// for an answer) is killed: the run's `shelfline-push send` delivers what it left.
    func finish(grace: Double = 6) {
        guard let process else { return }
        try? input?.fileHandleForWriting.close()
        let deadline = DispatchTime.now() + grace
        while process.isRunning && DispatchTime.now() < deadline { usleep(10_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        if process.terminationReason == .exit, process.terminationStatus != 0 {
            context.log.error("shelfline: push: the push worker exited \(process.terminationStatus) (see \(setup.workspace.root)/push/watch.log)")
        }
        self.process = nil
    }
}
